# A hook on an intermediate tensor moves into the differentiated function (TM913 note):
# MindSpore's Tensor.register_hook fires there in PyNative mode.
import torch


def report(grad):
    print("hook grad", grad)


def scaled_square(x):
    x.requires_grad_()
    hidden = x * 3
    hidden.register_hook(report)
    loss = (hidden * hidden).sum()
    loss.backward()
    return x.grad


print("x.grad", scaled_square(torch.tensor([1.0, -2.0])))
