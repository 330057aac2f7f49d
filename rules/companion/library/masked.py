"""`torch.masked` reductions of a plain tensor with a mask: only the elements where the mask is
True take part. Built from `ops.where` and sums (CPU kernels); a reduction over no element gives
NaN, as torch's does.
"""

import mindspore
from mindspore import ops


def _masked_axes(input, dim):
    if dim is None:
        return tuple(range(input.ndim))
    return (dim,) if isinstance(dim, int) else tuple(dim)


def masked_mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """`torch.masked.mean(input, dim, keepdim=, dtype=, mask=)` of a tensor."""
    if dtype is not None:
        input = input.astype(dtype)
    if mask is None:
        return input.mean(axis=_masked_axes(input, dim), keep_dims=keepdim)
    mask = ops.broadcast_to(mask.astype(mindspore.bool_), input.shape)
    axes = _masked_axes(input, dim)
    total = ops.where(mask, input, ops.zeros_like(input)).sum(
        axis=axes, keepdims=keepdim
    )
    count = mask.astype(input.dtype).sum(axis=axes, keepdims=keepdim)
    return total / count


def masked_var(
    input,
    dim=None,
    unbiased=None,
    *,
    correction=None,
    keepdim=False,
    dtype=None,
    mask=None,
):
    """`torch.masked.var(input, dim, unbiased, correction=, keepdim=, dtype=, mask=)` of a
    tensor: the squared deviations from the masked mean, over the masked count less the
    correction (1 unless `unbiased=False` or another `correction` is given)."""
    if dtype is not None:
        input = input.astype(dtype)
    if correction is None:
        correction = 0 if unbiased is False else 1
    if mask is None:
        mask = ops.ones(input.shape, mindspore.bool_)
    mask = ops.broadcast_to(mask.astype(mindspore.bool_), input.shape)
    axes = _masked_axes(input, dim)
    mean = masked_mean(input, axes, keepdim=True, mask=mask)
    deviations = ops.where(mask, (input - mean) ** 2, ops.zeros_like(input))
    count = mask.astype(input.dtype).sum(axis=axes, keepdims=keepdim)
    return deviations.sum(axis=axes, keepdims=keepdim) / (count - correction)
