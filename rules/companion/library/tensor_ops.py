"""Tensor operations MindSpore 2.10 lacks, or runs on Ascend only, built from CPU operators.

Each function takes torch's arguments and computes torch's result: `out=` writes (`write_out`),
quantiles from a sort, `unique` along a dimension, the index updates (`index_copy`, `index_add`,
`index_put`), histograms, `mode`, and strided views read as gathers.
"""

import collections

import mindspore
import numpy as np
from mindspore import ops

from .methods import ValuesIndices


def write_out(out, value):
    """torch's `out=t`: the result written into `t` (in t's dtype, resized when its shape differs,
    as torch resizes it), and `t` returned; a tuple or list of outputs takes the results in order."""
    if isinstance(out, (tuple, list)):
        for target, result in zip(out, value):
            write_out(target, result)
        return out
    if value.dtype != out.dtype:
        value = value.astype(out.dtype)
    if tuple(value.shape) == tuple(out.shape):
        ops.assign(out, value)
    else:
        out.assign_value(value)
    return out


# torch's named results: `.values` / `.indices` (ValuesIndices, in methods.py) and `.min` / `.max`.
MinMax = collections.namedtuple("MinMax", ("min", "max"))


def _long(x):
    return x.astype(mindspore.int64)


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan):
    if isinstance(q, mindspore.Tensor):
        q = q.asnumpy()
    scalar_q = np.ndim(q) == 0
    qs = [float(value) for value in np.atleast_1d(np.asarray(q, np.float64))]
    x = input.reshape(-1) if dim is None else input
    axis = 0 if dim is None else dim % input.ndim
    x = ops.moveaxis(x, axis, -1)
    nan = ops.isnan(x)
    # NaN sorts last; a row's count of numbers decides its positions when NaN is ignored.
    ordered = ops.sort(ops.where(nan, ops.full_like(x, float("inf")), x), axis=-1)[0]
    size = x.shape[-1]
    count = (
        (size - nan.astype(mindspore.int32).sum(-1, keepdims=True)).astype(
            mindspore.float64
        )
        if ignore_nan
        else ops.full(x.shape[:-1] + (1,), size, dtype=mindspore.float64)
    )
    results = []
    for fraction in qs:
        position = fraction * (count - 1)
        low = ops.floor(position)
        high = ops.ceil(position)
        if interpolation == "lower":
            position = low
        elif interpolation == "higher":
            position = high
        elif interpolation == "nearest":
            position = ops.round(position)
        weight = (position - low).astype(x.dtype)
        low_i = ops.clamp(low, 0, size - 1).astype(mindspore.int32)
        high_i = ops.clamp(
            position if interpolation != "linear" else high, 0, size - 1
        ).astype(mindspore.int32)
        if interpolation in ("lower", "higher", "nearest"):
            value = ops.gather_elements(ordered, -1, high_i)
        elif interpolation == "midpoint":
            a = ops.gather_elements(ordered, -1, low_i)
            b = ops.gather_elements(
                ordered, -1, ops.clamp(high, 0, size - 1).astype(mindspore.int32)
            )
            value = (a + b) / 2
        else:
            a = ops.gather_elements(ordered, -1, low_i)
            b = ops.gather_elements(ordered, -1, high_i)
            value = a + (b - a) * weight
        invalid = count < 1 if ignore_nan else nan.any(-1, keep_dims=True)
        value = ops.where(invalid, ops.full_like(value, float("nan")), value)
        value = value.squeeze(-1)
        if keepdim:
            value = (
                value.expand_dims(axis)
                if dim is not None
                else value.reshape((1,) * input.ndim)
            )
        results.append(value)
    if scalar_q:
        return results[0]
    return ops.stack(results)


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """`torch.quantile`: from a sort along `dim` (or of all elements), with torch's five
    interpolations; a row holding NaN gives NaN (`ops.quantile` has no CPU kernel)."""
    return _quantile(input, q, dim, keepdim, interpolation, False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """`torch.nanquantile`: `quantile` of the numbers of each row, NaN left out."""
    return _quantile(input, q, dim, keepdim, interpolation, True)


def unique_dim(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """`torch.unique`: the distinct values in ascending order (of all elements, or the distinct
    slices along `dim` in lexicographic order), with the inverse indices and counts torch gives;
    built from numpy on the host (`Unique2`/`UniqueDim` have no CPU kernel)."""
    array = input.asnumpy()
    found = np.unique(array, return_inverse=True, return_counts=True, axis=dim)
    output = mindspore.Tensor(found[0])
    result = (output,)
    if return_inverse:
        inverse = found[1].reshape(array.shape if dim is None else (-1,))
        result += (mindspore.Tensor(inverse.astype(np.int64)),)
    if return_counts:
        result += (mindspore.Tensor(found[2].astype(np.int64)),)
    return result[0] if len(result) == 1 else result


def _index_slices(input, dim, index, source):
    """`input` with `dim` moved first, the indices as a column, and `source`'s slices in
    input's dtype; a 0-d input is one element along dim 0, as torch treats it."""
    if input.ndim == 0:
        input, dim = input.reshape(1), 0
    dim = dim % input.ndim
    if source.ndim < input.ndim:
        # a 0-d index picks one slice, which `source` may give without its dim
        source = source.reshape(input.shape[:dim] + (-1,) + input.shape[dim + 1 :])
    moved = ops.moveaxis(input, dim, 0)
    values = ops.moveaxis(source, dim, 0).astype(input.dtype)
    return moved, dim, index.reshape(-1, 1).astype(mindspore.int32), values


def index_copy(input, dim, index, source):
    """`torch.index_copy`: the slices `index` along `dim` replaced by `source`'s."""
    moved, dim, index, values = _index_slices(input, dim, index, source)
    moved = ops.tensor_scatter_update(moved, index, values)
    return ops.moveaxis(moved, 0, dim).reshape(input.shape)


def index_add(input, dim, index, source, *, alpha=1):
    """`torch.index_add`: `alpha * source`'s slices added into the slices `index` along `dim`
    (repeated indices add up)."""
    moved, dim, index, values = _index_slices(input, dim, index, source)
    moved = ops.tensor_scatter_add(moved, index, (values * alpha).astype(input.dtype))
    return ops.moveaxis(moved, 0, dim).reshape(input.shape)


def masked_scatter(input, mask, source):
    """`torch.masked_scatter`: `source`'s elements, in order, written where `mask` is True; input
    and mask broadcast together first, as torch does (MindSpore's kernel only broadcasts the
    mask to the input's shape)."""
    shape = np.broadcast_shapes(tuple(input.shape), tuple(mask.shape))
    if tuple(input.shape) != shape:
        input = ops.broadcast_to(input, shape)
    if tuple(mask.shape) != shape:
        mask = ops.broadcast_to(mask, shape)
    return input.masked_scatter(mask, source)


def index_put(input, indices, values, accumulate=False):
    """`torch.index_put`: the elements `input[indices]` set to `values` (added with
    `accumulate=True`)."""
    index = ops.stack([i.astype(mindspore.int32) for i in indices], axis=-1)
    shape = index.shape[:-1] + input.shape[len(indices) :]
    values = ops.broadcast_to(values.astype(input.dtype), shape)
    if accumulate:
        return ops.tensor_scatter_add(input, index, values)
    return ops.tensor_scatter_update(input, index, values)


def histc(input, bins=100, min=0, max=0, *, out=None):
    """`torch.histc`: counts in `bins` equal bins between min and max (the data's range when both
    are 0), values outside left out, the last bin closed."""
    x = input.reshape(-1).astype(mindspore.float32)
    low, high = float(min), float(max)
    if low == 0 and high == 0:
        low, high = float(x.min()), float(x.max())
    if low == high:
        low, high = low - 1, high + 1
    inside = ops.logical_and(x >= low, x <= high)
    position = ((x - low) * (bins / (high - low))).astype(mindspore.int32)
    position = ops.clamp(position, 0, bins - 1)
    counts = ops.zeros(bins, input.dtype)
    return ops.tensor_scatter_add(
        counts, position.reshape(-1, 1), inside.astype(input.dtype)
    )


def histogram(input, bins, *, range=None, weight=None, density=False, out=None):
    """`torch.histogram`: (hist, bin_edges), as numpy's histogram counts them (float results)."""
    edges = bins.asnumpy() if isinstance(bins, mindspore.Tensor) else bins
    hist, bin_edges = np.histogram(
        input.asnumpy(),
        edges,
        range=range,
        weights=None if weight is None else weight.asnumpy(),
        density=density,
    )
    dtype = input.dtype
    return collections.namedtuple("Histogram", ("hist", "bin_edges"))(
        mindspore.Tensor(hist).astype(dtype), mindspore.Tensor(bin_edges).astype(dtype)
    )


def mode(input, dim=-1, keepdim=False):
    """`torch.mode`: the most frequent value along `dim` (the smallest among ties) and the index
    of its last occurrence, as torch's CPU kernel returns it."""
    x = np.moveaxis(input.asnumpy(), dim, -1)
    flat = x.reshape(-1, x.shape[-1])
    values = np.empty(flat.shape[0], flat.dtype)
    indices = np.empty(flat.shape[0], np.int64)
    for row, data in enumerate(flat):
        distinct, counts = np.unique(data, return_counts=True)
        value = distinct[np.argmax(counts)]
        values[row] = value
        indices[row] = np.nonzero(data == value)[0][-1]
    shape = x.shape[:-1]
    values, indices = values.reshape(shape), indices.reshape(shape)
    if keepdim:
        axis = dim % input.ndim
        values, indices = np.expand_dims(values, axis), np.expand_dims(indices, axis)
    return ValuesIndices(mindspore.Tensor(values), mindspore.Tensor(indices))


def as_strided(input, size, stride, storage_offset=0):
    """`torch.as_strided` of a contiguous tensor: the elements at `storage_offset + sum(i * stride)`
    gathered into a new tensor of shape `size` (a copy, not a view)."""
    index = np.full(tuple(size), storage_offset, np.int64)
    for axis, (length, step) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[axis] = length
        index = index + (np.arange(length) * step).reshape(shape)
    flat = input.reshape(-1)
    return ops.gather(
        flat, mindspore.Tensor(index.reshape(-1), mindspore.int32), 0
    ).reshape(tuple(size))


def narrow_copy(input, dim, start, length):
    """`torch.narrow_copy`: the slice `start:start+length` along `dim` (a negative start counts
    from the end, a 0-d tensor is read as its number), as a new tensor."""
    dim = dim % input.ndim
    start = int(start) % input.shape[dim] if int(start) < 0 else int(start)
    return ops.narrow(input, dim, start, int(length)).copy()


def aminmax(input, *, dim=None, keepdim=False, out=None):
    """`torch.aminmax`: (min, max) of all elements or along `dim`, with `.min` and `.max`."""
    if dim is None:
        low, high = input.min(), input.max()
        if keepdim:
            low, high = low.reshape((1,) * input.ndim), high.reshape((1,) * input.ndim)
        return MinMax(low, high)
    return MinMax(input.amin(dim, keepdim), input.amax(dim, keepdim))


def cummax(input, dim):
    """`torch.cummax`: (values, indices) with `.values` and `.indices`, int64 indices."""
    values, indices = ops.cummax(input, dim)
    return ValuesIndices(values, _long(indices))


def cummin(input, dim):
    """`torch.cummin`: (values, indices) with `.values` and `.indices`, int64 indices."""
    values, indices = ops.cummin(input, dim)
    return ValuesIndices(values, _long(indices))


def _uniform(input):
    return ops.rand_like(input, dtype=mindspore.float32)


def apply_(input, callable):
    """`x.apply_(fn)`: fn applied to each element as a Python number, the results written back
    into x in its dtype (on the host, as torch runs it on the CPU only)."""
    array = input.asnumpy()
    values = [callable(value) for value in array.reshape(-1).tolist()]
    values = np.array(values, dtype=array.dtype).reshape(array.shape)
    return ops.assign(input, mindspore.Tensor(values))


def cauchy_(input, median=0.0, sigma=1.0, *, generator=None):
    """`x.cauchy_()`: x filled with Cauchy draws (the inverse CDF of uniform draws)."""
    value = median + sigma * ops.tan(np.pi * (_uniform(input) - 0.5))
    return ops.assign(input, value.astype(input.dtype))


def log_normal_(input, mean=1.0, std=2.0, *, generator=None):
    """`x.log_normal_()`: x filled with exp of normal draws."""
    value = ops.exp(mean + std * ops.randn_like(input, dtype=mindspore.float32))
    return ops.assign(input, value.astype(input.dtype))


def exponential_(input, lambd=1.0, *, generator=None):
    """`x.exponential_()`: x filled with exponential draws (the inverse CDF of uniform draws)."""
    value = -ops.log(1 - _uniform(input)) / lambd
    return ops.assign(input, value.astype(input.dtype))


def geometric_(input, p, *, generator=None):
    """`x.geometric_(p)`: x filled with the number of Bernoulli(p) trials to the first success."""
    value = ops.ceil(ops.log(1 - _uniform(input)) / np.log(1 - p))
    return ops.assign(input, ops.clamp(value, 1, None).astype(input.dtype))


def bernoulli_(input, p=0.5, *, generator=None):
    """`x.bernoulli_(p)`: x filled with 1 where a uniform draw falls below `p` (a number or a
    tensor of probabilities), else 0, in x's dtype."""
    return ops.assign(input, (_uniform(input) < p).astype(input.dtype))


def tensor_real(x):
    """`x.real`: a MindSpore tensor's real part (`ops.real`); any other object's own attribute."""
    if isinstance(x, mindspore.Tensor):
        return ops.real(x)
    return x.real


def tensor_imag(x):
    """`x.imag`: a MindSpore tensor's imaginary part (`ops.imag`; zeros for a real tensor); any
    other object's own attribute."""
    if isinstance(x, mindspore.Tensor):
        return ops.imag(x)
    return x.imag


def tensor_mT(x):
    """`x.mT`: the last two dims swapped; a 0-d tensor is its own (MindSpore's `mT` refuses
    it); any other object's own attribute."""
    if isinstance(x, mindspore.Tensor) and x.ndim == 0:
        return x
    return x.mT


def tensor_mH(x):
    """`x.mH`: the conjugate with the last two dims swapped; a 0-d tensor's is its conjugate
    (MindSpore's `mH` refuses it); any other object's own attribute."""
    if isinstance(x, mindspore.Tensor) and x.ndim == 0:
        return ops.conj(x) if x.is_complex() else x
    return x.mH


def tensor_H(x):
    """`x.H`: the conjugate transpose of a matrix; a 0-d tensor's is its conjugate (MindSpore's
    `H` refuses it); any other object's own attribute."""
    if isinstance(x, mindspore.Tensor) and x.ndim == 0:
        return ops.conj(x) if x.is_complex() else x
    return x.H


def bitwise_not(input, *, out=None):
    """`torch.bitwise_not`: logical not of a bool tensor, `-x - 1` of an integer one (two's
    complement; MindSpore's BitwiseNot has no CPU kernel)."""
    if input.dtype == mindspore.bool_:
        return ops.logical_not(input)
    return -input - 1


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """`torch.allclose`: one Python bool, `ops.isclose` of every element."""
    return bool(
        ops.isclose(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan).all()
    )


def select(input, dim, index):
    """`torch.select`: the slice at `index` along `dim`, that dimension removed."""
    return input[(slice(None),) * (dim % input.ndim) + (int(index),)]


def vdot(input, other, *, out=None):
    """`torch.vdot`: the dot product of two 1-D tensors, the first conjugated."""
    if input.is_complex():
        input = ops.conj(input)
    return (input * other).sum()


def take_along_dim(input, indices, dim=None, *, out=None):
    """`torch.take_along_dim`: `ops.gather_elements` after broadcasting the two (of the
    flattened input when `dim` is None)."""
    if dim is None:
        return ops.gather_elements(input.reshape(-1), 0, indices.reshape(-1))
    dim = dim % input.ndim
    shape = list(np.broadcast_shapes(input.shape, indices.shape))
    index_shape = shape[:dim] + [indices.shape[dim]] + shape[dim + 1 :]
    input_shape = shape[:dim] + [input.shape[dim]] + shape[dim + 1 :]
    return ops.gather_elements(
        ops.broadcast_to(input, tuple(input_shape)),
        dim,
        ops.broadcast_to(indices, tuple(index_shape)),
    )


def broadcast_shapes(*shapes):
    """`torch.broadcast_shapes`: the shape the given shapes broadcast to, as a tuple."""
    return tuple(
        np.broadcast_shapes(*[(s,) if isinstance(s, int) else tuple(s) for s in shapes])
    )


def broadcast_tensors(*tensors):
    """`torch.broadcast_tensors`: every tensor broadcast to their common shape."""
    shape = np.broadcast_shapes(*[tuple(t.shape) for t in tensors])
    return tuple(ops.broadcast_to(t, shape) for t in tensors)


def unflatten(input, dim, sizes):
    """`torch.unflatten`: dimension `dim` split into `sizes` (one of them may be -1)."""
    dim = dim % input.ndim
    return input.reshape(input.shape[:dim] + tuple(sizes) + input.shape[dim + 1 :])


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """`torch.cumulative_trapezoid`: the running trapezoid-rule integral along `dim`."""
    dim = dim % y.ndim
    length = y.shape[dim]
    left = ops.narrow(y, dim, 0, length - 1)
    right = ops.narrow(y, dim, 1, length - 1)
    if x is not None:
        spacing = ops.diff(x, axis=-1 if x.ndim == 1 else dim)
        if x.ndim == 1 and y.ndim > 1:
            spacing = spacing.reshape((-1,) + (1,) * (y.ndim - 1 - dim))
    else:
        spacing = 1.0 if dx is None else dx
    return ops.cumsum((left + right) * spacing / 2, axis=dim)


def chain_matmul(*matrices, out=None):
    """`torch.chain_matmul`: the matrices multiplied left to right."""
    result = matrices[0]
    for matrix in matrices[1:]:
        result = ops.matmul(result, matrix)
    return result


def signbit(input, *, out=None):
    """`torch.signbit`: True where the sign bit is set, -0.0 included (`ops.signbit` misses it on
    CPU); integers and bools by their sign."""
    if not input.is_floating_point():
        return input < 0
    zero_sign = ops.logical_and(input == 0, (1 / input) < 0)
    return ops.logical_or(ops.signbit(input), zero_sign)


def scatter_add(input, dim, index, src):
    """`torch.scatter_add` and `Tensor.scatter_add`: a copy of `input` with the values of `src`
    (the part of it `index`'s shape covers) added at `index` along `dim`, by
    `ops.tensor_scatter_elements` (`Tensor.scatter_add`'s kernel has no CPU form)."""
    if not isinstance(src, mindspore.Tensor):
        src = ops.full(index.shape, src, dtype=input.dtype)
    src = src[tuple(slice(0, size) for size in index.shape)].astype(input.dtype)
    # The kernel takes contiguous operands only (a column of nonzero's result is a view).
    return ops.tensor_scatter_elements(
        input, index.contiguous(), src.contiguous(), axis=dim, reduction="add"
    )
