# Seed 000/001 first example, with the leaf kept under its own name so its gradient can be read.
import torch
from torch.autograd import Variable

a = Variable(torch.ones(2, 2), requires_grad=True)
x = a * 2
y = x - 1
y.backward(x)
print("y", y)
print("a.grad", a.grad)
