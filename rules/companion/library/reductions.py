"""`torch.*` reductions and their results with torch's signatures: medians that skip NaN or
take no dim, norms as torch computes them, a mean in a given dtype, stable argsort, int64
(values, indices) pairs, and numerical gradients."""

import math

import mindspore
from mindspore import ops

from .methods import ValuesIndices
from .torch_functions import _written


def nanmedian(input, dim=None, keepdim=False, *, out=None):
    """`torch.nanmedian`: the lower median of the values that are not NaN (NaN where a row has
    only NaN); with `dim`, torch's (values, indices) pair. NaN is sorted last as +inf, since
    MindSpore 2.10's CPU sort leaves NaN where it stands."""
    if dim is None:
        result = nanmedian(input.reshape(-1), 0).values
    else:
        dim = dim % input.ndim if input.ndim else 0
        nan = ops.isnan(input)
        keys = ops.where(nan, mindspore.tensor(float("inf"), input.dtype), input)
        if not input.is_floating_point():
            keys = input
        _, order = ops.sort(keys, axis=dim)
        order = order.astype(mindspore.int64)
        valid = (~nan).astype(mindspore.int64).sum(axis=dim, keepdims=True)
        pick = ops.maximum(valid - 1, ops.zeros_like(valid)) // 2
        index = ops.gather_elements(order, dim, pick)
        values = ops.gather_elements(input, dim, index)
        if not keepdim:
            values, index = values.squeeze(dim), index.squeeze(dim)
        result = ValuesIndices(values, index)
    return _written(out, result)


def torch_norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """`torch.norm`: 'fro' and numbers are vector norms over `dim` (all elements without it), as
    torch computes them ('fro' is the 2-norm); 'nuc' is the nuclear norm of a matrix."""
    if dtype is not None:
        input = input.astype(dtype)
    if p == "nuc":
        return _written(out, ops.norm(input, "nuc", dim, keepdim))
    if dim is None:
        dims = tuple(range(input.ndim))
    elif isinstance(dim, int):
        dims = (dim,)
    else:
        dims = tuple(dim)
    magnitude = ops.abs(input)
    if p == "fro" or p == 2:
        result = ops.sqrt((magnitude * magnitude).sum(axis=dims, keepdims=keepdim))
    elif p == math.inf:
        result = magnitude.max(axis=dims, keepdims=keepdim)
    elif p == -math.inf:
        result = magnitude.min(axis=dims, keepdims=keepdim)
    elif p == 0:
        result = (magnitude != 0).astype(input.dtype).sum(axis=dims, keepdims=keepdim)
    else:
        result = ops.pow(
            ops.pow(magnitude, p).sum(axis=dims, keepdims=keepdim), 1.0 / p
        )
    return _written(out, result)


def torch_mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """`torch.mean` with `dtype`: the input cast to it first, as torch does."""
    if dtype is not None:
        input = input.astype(dtype)
    return _written(out, ops.mean(input, dim, keepdim))


def torch_median(input, dim=None, keepdim=False, *, out=None):
    """`torch.median`: without `dim`, the lower median of all elements (NaN when one is NaN); with
    it, torch's (values, indices) pair with int64 indices."""
    if dim is None:
        flat = input.reshape(-1)
        if ops.isnan(flat).any():
            return _written(out, mindspore.tensor(float("nan"), input.dtype))
        values, _ = ops.sort(flat)
        return _written(out, values[(flat.shape[0] - 1) // 2])
    values, indices = ops.median(input, dim, keepdim)
    return _written(out, ValuesIndices(values, indices.astype(mindspore.int64)))


def values_indices(pair):
    """torch's (values, indices) named tuple, with int64 indices, from MindSpore's plain pair
    (`ops.sort`, `ops.topk` and `ops.cummin` give int32 indices)."""
    values, indices = pair
    return ValuesIndices(values, indices.astype(mindspore.int64))


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """`torch.gradient`: central differences inside, one-sided ones at the edges (edge_order 1),
    along each of `dim` (all dims without it); `spacing` is one number, a number per dim, or the
    coordinates of each dim's points (unevenly spaced ones too, as torch does)."""
    if edge_order != 1:
        raise NotImplementedError("gradient: only edge_order=1 is supported")
    if dim is None:
        dims = list(range(input.ndim))
    elif isinstance(dim, int):
        dims = [dim]
    else:
        dims = list(dim)
    if not isinstance(spacing, (list, tuple)):
        spacing = [spacing] * len(dims)
    results = []
    for axis, step in zip(dims, spacing):
        axis = axis % input.ndim
        x = input if input.is_floating_point() else input.astype(mindspore.float32)
        n = x.shape[axis]

        def part(start, stop, x=x, axis=axis):
            return x[(slice(None),) * axis + (slice(start, stop),)]

        if isinstance(step, mindspore.Tensor) and step.ndim == 1:
            h = step.astype(x.dtype)
            shape = [1] * x.ndim
            shape[axis] = -1
            left = (h[1:-1] - h[:-2]).reshape(shape)
            right = (h[2:] - h[1:-1]).reshape(shape)
            inner = (
                left * left * part(2, n)
                - right * right * part(0, n - 2)
                + (right * right - left * left) * part(1, n - 1)
            ) / (left * right * (left + right))
            first = (part(1, 2) - part(0, 1)) / (h[1] - h[0])
            last = (part(n - 1, n) - part(n - 2, n - 1)) / (h[-1] - h[-2])
        else:
            h = float(step)
            inner = (part(2, n) - part(0, n - 2)) / (2 * h)
            first = (part(1, 2) - part(0, 1)) / h
            last = (part(n - 1, n) - part(n - 2, n - 1)) / h
        pieces = [first, inner, last] if n > 2 else [first, last]
        results.append(ops.cat(pieces, axis=axis))
    return tuple(results)


def torch_argsort(input, dim=-1, descending=False, stable=False):
    """`torch.argsort` with int64 indices; `stable=True` keeps equal elements in their order: the
    positions are sorted again by (run of equal values, original index), a key with no ties, so
    the order does not depend on how MindSpore's sort treats ties."""
    values, order = ops.sort(input, axis=dim, descending=descending)
    order = order.astype(mindspore.int64)
    if not stable or input.ndim == 0:
        return order
    dim = dim % input.ndim
    n = input.shape[dim]
    later = values[(slice(None),) * dim + (slice(1, None),)]
    earlier = values[(slice(None),) * dim + (slice(None, -1),)]
    starts = ops.cat(
        [
            ops.zeros_like(values[(slice(None),) * dim + (slice(0, 1),)]).astype(
                mindspore.int64
            ),
            (later != earlier).astype(mindspore.int64),
        ],
        axis=dim,
    )
    key = (ops.cumsum(starts, dim) * n + order).astype(mindspore.float64)
    _, position = ops.sort(key, axis=dim)
    return ops.gather_elements(order, dim, position.astype(mindspore.int64))
