# Seed 000/001, torch.autograd.grad: returns the gradients instead of filling .grad.
import mindspore
print("=== torch.autograd.grad ===")
x = mindspore.tensor(1.0)
y = mindspore.tensor(2.0)
def z_fn(x, y):
    z = x**2+y
    return z
z, z_grad = mindspore.value_and_grad(z_fn, grad_position=0)(x, y)
out = (z_grad,)
out1 = (mindspore.grad(z_fn, grad_position=1)(x, y),)
print("out", out)
print("out1", out1)
