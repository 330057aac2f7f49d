"""Tensor methods whose MindSpore 2.10 form takes other arguments, returns another type, or has no
CPU kernel, built from CPU operators with torch's arguments and results.

`new_full`/`new_ones`/`new_zeros`/`new_empty` in the receiver's dtype, `fill_diagonal_`,
`scatter_reduce`, `kthvalue` and `topk` as (values, indices) with int64 indices, `polygamma` with
an int order, `split_with_sizes`, `index_fill` with int64 indices, `diag` off the main diagonal and
`narrow` with a tensor start.
"""

import collections

import mindspore
import numpy as np
from mindspore import ops

from .methods import ValuesIndices


def _new_sizes(args, size):
    """torch's sizes, given one by one (`x.new_ones(2, 3)`), as one sequence or as `size=`."""
    if size is not None:
        args = (size,)
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return tuple(args)


def _new_filled(input, value, args, size, dtype, requires_grad):
    if requires_grad:
        raise NotImplementedError(
            "requires_grad=True: MindSpore has no tape, wrap the result in "
            "mindspore.Parameter to differentiate with respect to it"
        )
    return ops.full(_new_sizes(args, size), value, dtype=dtype or input.dtype)


def new_full(
    input,
    size,
    fill_value,
    *,
    dtype=None,
    device=None,
    requires_grad=False,
    layout=None,
    pin_memory=False,
):
    """`x.new_full(size, fill_value)`: a new tensor of x's dtype (or `dtype`) holding the value;
    `device`, `layout` and `pin_memory` only place memory."""
    return _new_filled(input, fill_value, (), size, dtype, requires_grad)


def new_ones(
    input,
    *args,
    size=None,
    dtype=None,
    device=None,
    requires_grad=False,
    layout=None,
    pin_memory=False,
):
    """`x.new_ones(*size)`: ones in x's dtype (or `dtype`)."""
    return _new_filled(input, 1, args, size, dtype, requires_grad)


def new_zeros(
    input,
    *args,
    size=None,
    dtype=None,
    device=None,
    requires_grad=False,
    layout=None,
    pin_memory=False,
):
    """`x.new_zeros(*size)`: zeros in x's dtype (or `dtype`)."""
    return _new_filled(input, 0, args, size, dtype, requires_grad)


def new_empty(
    input,
    *args,
    size=None,
    dtype=None,
    device=None,
    requires_grad=False,
    layout=None,
    pin_memory=False,
):
    """`x.new_empty(*size)`: a tensor of that shape whose values are unspecified (zeros here)."""
    return _new_filled(input, 0, args, size, dtype, requires_grad)


def fill_diagonal_(input, fill_value, wrap=False):
    """`x.fill_diagonal_(value, wrap=False)`: the main diagonal (every index equal) set to the
    value in place; with `wrap`, a tall matrix's diagonal starts again below its first square,
    as torch's steps of `columns + 1` through the flat storage do."""
    shape = tuple(input.shape)
    if len(shape) == 2:
        rows, cols = shape
        last = rows * cols if wrap else min(rows, cols) * cols
        flat = np.arange(0, last, cols + 1)
    else:
        steps = sum(int(np.prod(shape[i + 1 :])) for i in range(len(shape)))
        flat = np.arange(min(shape)) * steps
    mask = np.zeros(int(np.prod(shape)), dtype=bool)
    mask[flat] = True
    mask = mindspore.tensor(mask.reshape(shape))
    value = ops.full(shape, fill_value, dtype=input.dtype)
    return ops.assign(input, ops.where(mask, value, input))


def _scatter_coordinates(index, dim):
    """The full coordinates of each element of `index` with its value in place of axis `dim`."""
    grids = np.meshgrid(*[np.arange(n) for n in index.shape], indexing="ij")
    coords = [mindspore.tensor(g, mindspore.int64) for g in grids]
    coords[dim] = index.astype(mindspore.int64)
    return ops.stack(coords, axis=-1).reshape(-1, index.ndim)


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """`x.scatter_reduce(dim, index, src, reduce)`: the values of `src` reduced into a copy of x
    at `index` along `dim` by "sum", "prod", "mean", "amax" or "amin"; `include_self=False`
    leaves x's own values out where something is scattered."""
    dim = dim % input.ndim
    src = src[tuple(slice(0, n) for n in index.shape)].astype(input.dtype).reshape(-1)
    coords = _scatter_coordinates(index, dim)
    hit = ops.tensor_scatter_update(
        ops.zeros(input.shape, mindspore.bool_),
        coords,
        ops.ones(src.shape, mindspore.bool_),
    )
    start = {"sum": 0, "mean": 0, "prod": 1}.get(reduce)
    if reduce in ("amax", "amin"):
        # The first scattered value stands for x's own where x is left out.
        start_values = ops.tensor_scatter_update(input, coords, src)
        base = input if include_self else ops.where(hit, start_values, input)
        combine = ops.tensor_scatter_max if reduce == "amax" else ops.tensor_scatter_min
        return combine(base, coords, src)
    if start is None:
        raise ValueError(f"scatter_reduce: unknown reduce {reduce!r}")
    base = input if include_self else ops.where(hit, ops.full_like(input, start), input)
    if reduce == "prod":
        # Products as one update per source element, in order (duplicates multiply).
        result = base
        for row, value in zip(coords, src):
            result = ops.tensor_scatter_mul(
                result, row.reshape(1, -1), value.reshape(1)
            )
        return result
    total = ops.tensor_scatter_add(base, coords, src)
    if reduce == "sum":
        return total
    counts = ops.tensor_scatter_add(
        ops.full(input.shape, 1 if include_self else 0, dtype=input.dtype),
        coords,
        ops.ones(src.shape, input.dtype),
    )
    mean = total / ops.maximum(counts, ops.ones_like(counts))
    if not input.is_floating_point():
        mean = ops.floor(mean)
    return ops.where(counts > 0, mean.astype(input.dtype), input)


def kthvalue(input, k, dim=-1, keepdim=False, *, out=None):
    """`x.kthvalue(k, dim)`: the k-th smallest values along `dim` and their int64 indices, as
    torch's (values, indices) pair."""
    values, indices = ops.sort(input, axis=dim)
    values = ops.narrow(values, dim, k - 1, 1)
    indices = ops.narrow(indices, dim, k - 1, 1).astype(mindspore.int64)
    if not keepdim:
        values, indices = values.squeeze(dim), indices.squeeze(dim)
    return ValuesIndices(values, indices)


def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):
    """`x.topk(k)`: torch's (values, indices) pair, read by position or as `.values`/`.indices`,
    with int64 indices (MindSpore gives a plain tuple with int32 ones)."""
    values, indices = ops.topk(input, k, dim=dim, largest=largest, sorted=sorted)
    return ValuesIndices(values, indices.astype(mindspore.int64))


def tensor_polygamma(input, n):
    """`x.polygamma(n)`: the n-th derivative of digamma (MindSpore takes n as a tensor first)."""
    return ops.polygamma(mindspore.tensor(n, mindspore.int64), input)


def split_with_sizes(input, split_sizes, dim=0):
    """`x.split_with_sizes(sizes, dim)`: consecutive parts of the given lengths along `dim` (a
    length may be 0)."""
    parts, start = [], 0
    lead = (slice(None),) * (dim % input.ndim)
    for length in split_sizes:
        parts.append(input[lead + (slice(start, start + length),)])
        start += length
    return tuple(parts)


def index_fill(input, dim, index, value):
    """`x.index_fill(dim, index, value)`: MindSpore's kernel takes int32 indices only."""
    return ops.index_fill(input, dim, index.astype(mindspore.int32), value)


def tensor_diag(input, diagonal=0):
    """`x.diag(diagonal)`: a square matrix with x on that diagonal (x 1-D), or that diagonal of
    the matrix x."""
    if input.ndim == 1:
        return ops.diagflat(input, diagonal)
    return ops.diagonal(input, diagonal)


def tensor_diff(input, n=1, dim=-1, prepend=None, append=None):
    """`x.diff(n, dim, prepend, append)`: the n-th forward difference along `dim` (MindSpore's
    diff takes n=1 only), of x with `prepend` and `append` joined on."""
    parts = [part for part in (prepend, input, append) if part is not None]
    value = ops.cat(parts, axis=dim) if len(parts) > 1 else input
    for _ in range(n):
        value = ops.diff(value, 1, dim)
    return value


def tensor_corrcoef(input):
    """`x.corrcoef()`: Pearson's correlation of the rows of x, from `ops.cov`, clipped to
    [-1, 1] as torch clips it."""
    cov = ops.cov(input)
    if cov.ndim == 0:
        return cov / cov
    std = ops.sqrt(ops.diagonal(cov))
    corr = cov / std.reshape(-1, 1) / std.reshape(1, -1)
    return ops.clamp(corr, -1, 1)


MantissaExponent = collections.namedtuple("MantissaExponent", ("mantissa", "exponent"))


def tensor_frexp(input):
    """`x.frexp()`: (mantissa, exponent) with x = mantissa * 2**exponent, |mantissa| in
    [0.5, 1) and int32 exponents; 0 gives (0, 0)."""
    zero = input == 0
    magnitude = ops.where(zero, ops.ones_like(input), ops.abs(input))
    exponent = ops.floor(ops.log2(magnitude)) + 1
    mantissa = input / ops.pow(2.0, exponent)
    # log2 rounds near powers of two: bring the mantissa back into [0.5, 1).
    high = ops.abs(mantissa) >= 1
    mantissa = ops.where(high, mantissa / 2, mantissa)
    exponent = ops.where(high, exponent + 1, exponent)
    exponent = ops.where(zero, ops.zeros_like(exponent), exponent)
    return MantissaExponent(mantissa, exponent.astype(mindspore.int32))


def dim_order(input, *, ambiguity_check=False):
    """`x.dim_order()`: the order of x's dimensions in memory, outermost first; MindSpore
    tensors made by operators are contiguous, so it is `0, 1, ..., ndim - 1`."""
    return tuple(range(input.ndim))


def resolved(input):
    """`x.resolve_conj()` / `x.resolve_neg()`: MindSpore computes conjugates and negations at
    once (no lazy bit), so x is already resolved."""
    return input


def assign_view(target, value):
    """An in-place update of `target`, which may be a view of another tensor: MindSpore's Assign
    refuses views, and an item assignment updates `target` in its own dtype. The viewed tensor
    sees the update only for some views (slices and rows; not reshapes or transposes)."""
    if not isinstance(value, mindspore.Tensor):
        value = mindspore.tensor(value)
    target[...] = value.astype(target.dtype)
    return target


def tensor_norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """`x.norm(p, dim, keepdim)`: torch's vector norm over `dim` (all elements when None) for
    a number p (0 counts the nonzeros, inf takes the largest magnitude), the Frobenius norm for
    'fro', and the nuclear norm of a matrix for 'nuc'; any float dtype (MindSpore's LpNorm takes
    float16 and float32 only)."""
    if dtype is not None:
        input = input.astype(dtype)
    if p == "nuc":
        return ops.norm(input, "nuc", dim=dim, keepdim=keepdim)
    if isinstance(dim, int):
        dim = (dim,)
    axes = tuple(range(input.ndim)) if dim is None else tuple(dim)
    magnitude = ops.abs(input)
    if p == "fro" or p == 2:
        return ops.sqrt(ops.sum(magnitude * magnitude, axes, keepdim))
    if p == float("inf"):
        return ops.amax(magnitude, axes, keepdim)
    if p == float("-inf"):
        return ops.amin(magnitude, axes, keepdim)
    if p == 0:
        return ops.sum((magnitude != 0).astype(magnitude.dtype), axes, keepdim)
    return ops.pow(ops.sum(ops.pow(magnitude, p), axes, keepdim), 1.0 / p)
