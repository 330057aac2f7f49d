# A custom autograd.Function with a hand-written backward (a straight-through clamp).
import numpy as np
import torch


class StraightThroughClamp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, limit):
        ctx.save_for_backward(x)
        ctx.limit = limit
        return x.clamp(-limit, limit)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        # pass the gradient through, damped outside the range
        inside = (x.abs() <= ctx.limit).float()
        return grad_output * (inside + 0.1 * (1.0 - inside)), None


class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        result = x.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result


def objective(x):
    clamped = StraightThroughClamp.apply(x, 1.0)
    return (Exp.apply(clamped) * 2.0).sum()


x = torch.tensor(np.array([-2.0, -0.5, 0.3, 1.5], dtype=np.float32), requires_grad=True)
value = objective(x)
value.backward()
print("value", value)
print("grad", x.grad)
