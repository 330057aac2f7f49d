# Seed 000/001, torch.no_grad: MindSpore records nothing during the forward pass anyway.
import mindspore
print("=== torch.no_grad ===")
x = mindspore.tensor(1.0)
y = mindspore.tensor(2.0)
z = x**2+y
print("z.requires_grad", True)
z = x**2+y
print("z.requires_grad", False)
