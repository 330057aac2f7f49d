# A custom Function that tells autograd which outputs have no gradient: reported (TM915).
import torch


class SortWithIndices(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        values, indices = x.sort()
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        (indices,) = ctx.saved_tensors
        grad = torch.zeros_like(grad_values)
        grad[indices] = grad_values
        return grad
