# Seed 000/001, retain_graph: a second backward through the same forward needs the graph kept;
# the gradients of both add up in .grad.
import torch

x = torch.tensor(1.0, requires_grad=True)
y = torch.tensor(2.0, requires_grad=True)
z = x**2+y
z.backward(retain_graph=True)
print("x.grad after one backward", x.grad)
z.backward()
print("x.grad after two", x.grad)
print("y.grad after two", y.grad)
