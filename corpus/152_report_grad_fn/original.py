# Control flow on the tape (grad_fn): reported (TM912).
import torch


def describe(t):
    if t.grad_fn is not None:
        return "computed"
    return "leaf"


x = torch.tensor([1.0, 2.0], requires_grad=True)
print(describe(x * 2), describe(x))
