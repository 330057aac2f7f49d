# Seed 000/001 first example, with the leaf kept under its own name so its gradient can be read.
import mindspore
from mindspore import ops

a = ops.ones((2, 2))
def y_fn(a):
    x = a * 2
    y = x - 1
    return y, x
y, y_vjp, x = mindspore.vjp(y_fn, a, has_aux=True)
(a_grad,) = y_vjp(x)
print("y", y)
print("a.grad", a_grad)
