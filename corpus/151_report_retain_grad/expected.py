# The gradient of an intermediate value through retain_grad(): reported (TM911).
import torch

# torch2ms: TM941 `torch.tensor` argument `requires_grad` cannot be carried over with certainty
x = torch.tensor([1.0, 2.0], requires_grad=True)
hidden = x * 3
# torch2ms: TM911 `retain_grad()`: MindSpore keeps no gradient of intermediate values
hidden.retain_grad()
loss = (hidden ** 2).sum()
# torch2ms: TM910 gradient computation not converted: an intermediate's `.grad` is retained
loss.backward()
print("hidden.grad", hidden.grad)
print("x.grad", x.grad)
