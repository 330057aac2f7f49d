# Seed 000/001, "自动微分对比": PyTorch's backward accumulates into the leaves' .grad.
import torch
from torch.autograd import Variable

x = Variable(torch.ones(2, 2), requires_grad=True)
x = x * 2
y = x - 1
y.backward(x)
print("x", x)
print("y", y)
