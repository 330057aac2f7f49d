# Gradients of a module's parameters outside a training loop: reported (TM910), since the
# parameters' gradients come back from value_and_grad(fn, None, model.trainable_params()).
from mindspore import nn, ops
import torch

model = nn.Dense(3, 1)
x = ops.ones((2, 3))
out = model(x).sum()
# torch2ms: TM910 gradient computation not converted: the output depends on no tensor made with `requires_grad=True` in the same block (its leaves are created in an enclosing block, or are module parameters)
out.backward()
print("weight grad", model.weight.grad)
