# Seed 000/001, torch.autograd.backward: before backward x.grad and y.grad are empty;
# afterwards they hold the derivatives.
import mindspore
print("=== tensor.backward ===")
x = mindspore.tensor(1.0)
y = mindspore.tensor(2.0)
print("x.grad before backward", None)
print("y.grad before backward", None)
def z_fn(x, y):
    z = x**2+y
    return z
z, (x_grad, y_grad) = mindspore.value_and_grad(z_fn, grad_position=(0, 1))(x, y)
print("z", z)
print("x.grad", x_grad)
print("y.grad", y_grad)
print("=== torch.autograd.backward ===")
x = mindspore.tensor(1.0)
y = mindspore.tensor(2.0)
def z_fn_2(x, y):
    z = x**2+y
    return z
z, (x_grad_2, y_grad_2) = mindspore.value_and_grad(z_fn_2, grad_position=(0, 1))(x, y)
print("z", z)
print("x.grad", x_grad_2)
print("y.grad", y_grad_2)
