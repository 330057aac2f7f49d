# Seed 000/001: torch.autograd.backward with a single output (MindSpore's grad also takes several).
import mindspore
print("=== torch.autograd.backward 不支持多个output ===")
x = mindspore.tensor(1.0)
y = mindspore.tensor(2.0)
def z_fn(x, y):
    z = x**2+y
    return z
z, (x_grad, y_grad) = mindspore.value_and_grad(z_fn, grad_position=(0, 1))(x, y)

print("z", z)
print("x.grad", x_grad)
print("y.grad", y_grad)
