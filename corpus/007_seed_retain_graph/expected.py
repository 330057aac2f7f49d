# Seed 000/001, retain_graph: a second backward through the same forward needs the graph kept;
# the gradients of both add up in .grad.
import mindspore

x = mindspore.tensor(1.0)
y = mindspore.tensor(2.0)
def z_fn(x, y):
    z = x**2+y
    return z
z, (x_grad, y_grad) = mindspore.value_and_grad(z_fn, grad_position=(0, 1))(x, y)
print("x.grad after one backward", x_grad)
x_grad_new, y_grad_new = mindspore.grad(z_fn, grad_position=(0, 1))(x, y)
x_grad, y_grad = x_grad + x_grad_new, y_grad + y_grad_new
print("x.grad after two", x_grad)
print("y.grad after two", y_grad)
