# An in-place update of a leaf before its gradient is taken: reported (TM914).


def shifted(x):
    import torch
    # torch2ms: TM900 `.requires_grad_()` is not converted: no certain MindSpore mapping; it still runs on torch
    x.requires_grad_()
    # torch2ms: TM914 in-place update of `x`, which is differentiated
    x += 1.0
    loss = (x * x).sum()
    # torch2ms: TM910 gradient computation not converted: `x` is updated in place before the gradient
    loss.backward()
    return x.grad
