"""`torch.*` functions with torch's signatures, where MindSpore's op takes other arguments, lacks
an option, or has no CPU kernel for the dtype torch accepts; each is composed from ops that run
on the CPU."""

import math

import mindspore
import numpy as np
from mindspore import ops

from .functional import rrelu
from .methods import ValuesIndices
from .tensor_ops import write_out


def _written(out, result):
    """torch's `out=`: the result written into `out` (see `write_out`), else the result."""
    return result if out is None else write_out(out, result)


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """`torch.frombuffer`: the bytes of a buffer read as a 1-D tensor of `dtype` (a copy: MindSpore
    tensors do not share a Python buffer's memory)."""
    array = np.frombuffer(
        buffer, dtype=mindspore.dtype_to_nptype(dtype), count=count, offset=offset
    )
    return mindspore.tensor(array.copy(), dtype=dtype)


def cartesian_prod(*tensors):
    """`torch.cartesian_prod`: every combination of the 1-D inputs' elements, one row each, in
    itertools.product's order (one input: the input itself)."""
    if len(tensors) == 1:
        return tensors[0]
    grids = ops.meshgrid(*tensors, indexing="ij")
    return ops.stack([g.reshape(-1) for g in grids], axis=1)


def tensordot(a, b, dims=2, out=None):
    """`torch.tensordot`: `dims` as an int (the last `dims` axes of `a` with the first of `b`) or
    as two lists of axes; `ops.tensor_dot` computes it."""
    if isinstance(dims, mindspore.Tensor):
        dims = dims.asnumpy().tolist()
    if isinstance(dims, int):
        if dims == 0:
            product = ops.outer(a.reshape(-1), b.reshape(-1))
            return _written(out, product.reshape(tuple(a.shape) + tuple(b.shape)))
        axes = (tuple(range(a.ndim - dims, a.ndim)), tuple(range(dims)))
    else:
        first, second = dims
        axes = (
            tuple(first) if isinstance(first, (list, tuple)) else (first,),
            tuple(second) if isinstance(second, (list, tuple)) else (second,),
        )
    return _written(out, ops.tensor_dot(a, b, axes))


_CAST_KINDS = (
    (mindspore.bool_,),
    (
        mindspore.uint8,
        mindspore.int8,
        mindspore.int16,
        mindspore.int32,
        mindspore.int64,
    ),
    (mindspore.float16, mindspore.bfloat16, mindspore.float32, mindspore.float64),
    (mindspore.complex64, mindspore.complex128),
)


def can_cast(from_, to):
    """`torch.can_cast`: torch's casting rule, by kind only: bool < integer < floating < complex;
    a cast to a lower kind is refused, any cast within a kind or upwards allowed."""

    def kind(dtype):
        for rank, kinds in enumerate(_CAST_KINDS):
            if dtype in kinds:
                return rank
        raise TypeError(f"can_cast: unknown dtype {dtype}")

    return kind(from_) <= kind(to)


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


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """`torch.rrelu_`: `torch.nn.functional.rrelu` written into the input (the fixed slope
    (lower + upper) / 2 unless training)."""
    return rrelu(input, lower, upper, training, inplace=True)


def torch_diag(input, diagonal=0, *, out=None):
    """`torch.diag`: a 1-D input becomes the square matrix with it on the `diagonal`-th diagonal;
    a 2-D input gives that diagonal."""
    if input.ndim == 1:
        return _written(out, ops.diag_embed(input, offset=diagonal))
    return _written(out, ops.diagonal(input, offset=diagonal))


def masked_fill(input, mask, value):
    """`torch.masked_fill`: `value` (a number or 0-d tensor) cast to the input's dtype first, as
    torch does; MindSpore 2.10's CPU kernel refuses a value of another dtype."""
    if not isinstance(value, mindspore.Tensor):
        value = mindspore.tensor(value)
    return ops.masked_fill(input, mask, value.astype(input.dtype))


def torch_round(input, decimals=0, *, out=None):
    """`torch.round` with `decimals`: torch's formula, round(x * 10**d) / 10**d (for negative d,
    round(x / 10**-d) * 10**-d), half to even."""
    if decimals == 0:
        return _written(out, ops.round(input))
    if decimals > 0:
        scale = 10.0**decimals
        return _written(out, ops.round(input * scale) / scale)
    scale = 10.0 ** (-decimals)
    return _written(out, ops.round(input / scale) * scale)


def narrow(input, dim, start, length):
    """`torch.narrow`, whose `start` may be a 0-d tensor (MindSpore's narrow takes an int)."""
    if isinstance(start, mindspore.Tensor):
        start = int(start.asnumpy())
    if start < 0:
        start += input.shape[dim]
    return ops.narrow(input, dim, start, length)


def torch_add(input, other, *, alpha=1, out=None):
    """`torch.add` with `alpha`: `input + alpha * other`."""
    if alpha == 1:
        return _written(out, ops.add(input, other))
    return _written(out, ops.add(input, other * alpha))


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


def linspace(start, end, steps, *, out=None, dtype=None, **placement):
    """`torch.linspace` with `dtype`: the float32 points cast to it (an integer dtype truncates,
    as torch does)."""
    points = ops.linspace(float(start), float(end), steps)
    return _written(out, points if dtype is None else points.astype(dtype))


def torch_mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """`torch.mean` with `dtype`: the input cast to it first, as torch does."""
    if dtype is not None:
        input = input.astype(dtype)
    return _written(out, ops.mean(input, dim, keepdim))


def randint_like(input, low=0, high=None, *, dtype=None, **placement):
    """`torch.randint_like`: integers drawn uniformly from [low, high) (one bound: [0, high)) in
    the input's shape and dtype, or `dtype`. MindSpore draws them; they differ from torch's."""
    if high is None:
        low, high = 0, low
    drawn = ops.randint(int(low), int(high), tuple(input.shape), dtype=mindspore.int64)
    return drawn.astype(dtype if dtype is not None else input.dtype)


def adaptive_avg_pool1d(input, output_size):
    """`torch.adaptive_avg_pool1d`: bin i averages [floor(i*L/n), ceil((i+1)*L/n)), as torch does
    (MindSpore's CPU form needs L divisible by n)."""
    size = output_size[0] if isinstance(output_size, (tuple, list)) else output_size
    length = input.shape[-1]
    bins = [
        input[..., (i * length) // size : -((-(i + 1) * length) // size)].mean(
            axis=-1, keep_dims=True
        )
        for i in range(size)
    ]
    return ops.cat(bins, axis=-1)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """`torch.unique_consecutive`: `ops.unique_consecutive`, with torch's int64 inverse and counts
    and torch's result forms (the values alone, or a tuple)."""
    values, inverse, counts = ops.unique_consecutive(
        input, return_inverse=True, return_counts=True, dim=dim
    )
    result = (values,)
    if return_inverse:
        result += (inverse.astype(mindspore.int64),)
    if return_counts:
        result += (counts.astype(mindspore.int64),)
    return result[0] if len(result) == 1 else result


def conv_transpose3d(
    input,
    weight,
    bias=None,
    stride=1,
    padding=0,
    output_padding=0,
    groups=1,
    dilation=1,
):
    """`torch.conv_transpose3d` on `ops.Conv3DTranspose` (weight laid out as torch's: in, out /
    groups, kD, kH, kW)."""

    def triple(v):
        return tuple(v) if isinstance(v, (tuple, list)) else (v, v, v)

    pad = triple(padding)
    conv = ops.Conv3DTranspose(
        weight.shape[0],
        weight.shape[1] * groups,
        tuple(weight.shape[2:]),
        pad_mode="pad",
        pad=(pad[0], pad[0], pad[1], pad[1], pad[2], pad[2]),
        stride=triple(stride),
        dilation=triple(dilation),
        group=groups,
        output_padding=triple(output_padding),
    )
    result = conv(input, weight)
    if bias is not None:
        result = result + bias.reshape(1, -1, 1, 1, 1)
    return result


def is_inference(input):
    """`torch.is_inference`: MindSpore tensors are never inference-mode tensors."""
    return False


def resolve_conj(input):
    """`torch.resolve_conj`: MindSpore has no lazy conjugate bit; the tensor is already resolved."""
    return input


def resolve_neg(input):
    """`torch.resolve_neg`: MindSpore has no lazy negative bit; the tensor is already resolved."""
    return input


def write_in_place(function, input, *args, **kwargs):
    """`torch.<op>_(*args)`: `<op>(input, ...)` written into the input (in its dtype, as torch
    writes it; `copy_`, which a view takes too), and the input returned."""
    input.copy_(function(input, *args, **kwargs))
    return input


def torch_bernoulli(input, p=None, *, generator=None, out=None):
    """`torch.bernoulli`: 0 or 1 drawn with the probabilities in `input` (or `p` for every
    element). `ops.bernoulli(x)` alone would draw with p=0.5; MindSpore draws from its own
    stream (`mindspore.set_seed`), never from a torch generator."""
    return _written(out, ops.bernoulli(input, p=input if p is None else p))


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


def torch_angle(input, *, out=None):
    """`torch.angle`: the argument of a complex tensor; of a real one, pi where it is negative and
    0 elsewhere (NaN stays NaN), in float32 for integers as torch gives. MindSpore 2.10's CPU Angle
    takes complex tensors only."""
    if input.is_complex():
        return _written(out, ops.angle(input))
    if not input.is_floating_point():
        input = input.astype(mindspore.float32)
    result = ops.where(input < 0, mindspore.tensor(math.pi, input.dtype), input * 0)
    return _written(out, result)


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


def _atleast(function, tensors):
    """torch's atleast_Nd: one tensor gives one tensor, several (or one list) a tuple, none ()."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(function(t) for t in tensors[0])
    if len(tensors) == 1:
        return function(tensors[0])
    return tuple(function(t) for t in tensors)


def atleast_1d(*tensors):
    """`torch.atleast_1d(*tensors)`, also with no tensor at all (an empty tuple)."""
    return _atleast(ops.atleast_1d, tensors)


def atleast_2d(*tensors):
    """`torch.atleast_2d(*tensors)`, also with no tensor at all (an empty tuple)."""
    return _atleast(ops.atleast_2d, tensors)


def atleast_3d(*tensors):
    """`torch.atleast_3d(*tensors)`, also with no tensor at all (an empty tuple)."""
    return _atleast(ops.atleast_3d, tensors)
