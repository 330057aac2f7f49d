"""Grad mode switched by statements, and a leaf updated in place between forward passes."""

import mindspore
from mindspore import ops
import ms_aux


def scores(weights, inputs):
    return (weights * inputs).sum()


weights = mindspore.tensor([0.5, -1.0, 2.0])
inputs = mindspore.tensor([1.0, 2.0, 3.0])

# torch2ms: TM916 `torch.set_grad_enabled(False)` switches recording off for an extent that cannot be proven
ms_aux.set_grad_enabled(False)
frozen = scores(weights, inputs)
print("frozen score", frozen.item())
ms_aux.set_grad_enabled(True)
def total_fn(weights):
    total = scores(weights, inputs)
    return total
total, weights_grad = mindspore.value_and_grad(total_fn, grad_position=0)(weights)
print("first grad", weights_grad.tolist())
ops.assign(weights, weights.mul(0.5))
def again_fn(weights):
    again = scores(weights, inputs) ** 2
    return again
again, weights_grad = mindspore.value_and_grad(again_fn, grad_position=0)(weights)
print("second grad", weights_grad.tolist())
