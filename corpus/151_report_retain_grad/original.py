# The gradient of an intermediate value through retain_grad(): reported (TM911).
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
hidden = x * 3
hidden.retain_grad()
loss = (hidden ** 2).sum()
loss.backward()
print("hidden.grad", hidden.grad)
print("x.grad", x.grad)
