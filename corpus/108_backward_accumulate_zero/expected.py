# .grad accumulates over backwards until it is zeroed.
import mindspore
from mindspore import ops

w = mindspore.tensor(1.5)
def loss_fn(w):
    loss = w ** 3
    return loss
loss, w_grad = mindspore.value_and_grad(loss_fn, grad_position=0)(w)
print("after one", w_grad)
def loss2_fn(w):
    loss2 = 4.0 * w
    return loss2
loss2, w_grad_new = mindspore.value_and_grad(loss2_fn, grad_position=0)(w)
w_grad = w_grad + w_grad_new
print("accumulated", w_grad)
print("zeroed", ops.zeros_like(w))
def loss3_fn(w):
    loss3 = w * w
    return loss3
loss3, w_grad = mindspore.value_and_grad(loss3_fn, grad_position=0)(w)
print("after zero", w_grad)
print("reset", None)
