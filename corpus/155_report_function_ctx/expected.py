# A custom Function that tells autograd which outputs have no gradient: reported (TM915).
from mindspore import ops
import ms_aux


# torch2ms: TM915 `torch.autograd.Function` `SortWithIndices` not converted: `ctx.mark_non_differentiable`
class SortWithIndices(ms_aux.torch_only("torch.autograd.Function")):
    @staticmethod
    def forward(ctx, x):
        values, indices = x.sort()
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        (indices,) = ctx.saved_tensors
        grad = ops.zeros_like(grad_values)
        grad[indices] = grad_values
        return grad
