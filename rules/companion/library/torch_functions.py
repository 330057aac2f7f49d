"""`torch.*` functions with torch's signatures, where MindSpore's op takes other arguments, lacks
an option, or has no CPU kernel for the dtype torch accepts; each is composed from ops that run
on the CPU."""

import math

import mindspore
import numpy as np
from mindspore import ops

from .functional import rrelu
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


def linspace(start, end, steps, *, out=None, dtype=None, **placement):
    """`torch.linspace` with `dtype`: the float32 points cast to it (an integer dtype truncates,
    as torch does)."""
    points = ops.linspace(float(start), float(end), steps)
    return _written(out, points if dtype is None else points.astype(dtype))


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


def bincount(input, weights=None, minlength=0):
    """`torch.bincount`: the counts as int64 without weights (MindSpore's kernel gives float32),
    the sums in the weights' float type with them (float64 for integer weights), as torch's."""
    if weights is None:
        return ops.bincount(input, None, minlength).astype(mindspore.int64)
    if not ops.is_floating_point(weights):
        weights = weights.astype(mindspore.float64)
    return ops.bincount(input, weights, minlength).astype(weights.dtype)


def stack_value(tensors, dim=0):
    """`torch.stack` passed as a value (`map_values(torch.stack, outputs)`): `ops.stack` taking
    torch's `dim` by name too."""
    return ops.stack(tensors, dim)


def cat_value(tensors, dim=0):
    """`torch.cat` passed as a value: `ops.cat` taking torch's `dim` by name too."""
    return ops.cat(tensors, dim)


def softmax_value(input, dim, dtype=None):
    """`torch.softmax` passed as a value (`act=torch.softmax`, called `act(x, dim=1)`):
    `ops.softmax` taking torch's `dim` by name, on the input cast to `dtype` first."""
    if dtype is not None:
        input = input.astype(dtype)
    return ops.softmax(input, axis=dim)
