"""Functions with torch's signatures, composed from operators that have CPU kernels."""

import functools
import math

import mindspore
import numpy as np
from mindspore import ops

from .tensor_ops import unique_dim


def einsum(equation, *operands):
    """`torch.einsum`, from transposes, reshapes and batched matmuls (`ops.einsum` has no CPU kernel).

    Takes explicit (`'bhwc,hkc->bhwk'`) and implicit (`'ij,jk'`) equations of letters, operands one by
    one or as one list; more than two operands are contracted pairwise, left to right. An index
    repeated within one operand (`'ii->i'`, `'ii'`) takes that operand's diagonal first; `...`
    raises NotImplementedError."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    inputs, output = _einsum_parse(equation, len(operands))
    diagonals = [_einsum_diagonal(x, term) for x, term in zip(operands, inputs)]
    operands = tuple(x for x, _ in diagonals)
    inputs = tuple(term for _, term in diagonals)
    result, labels = operands[0], inputs[0]
    for index in range(1, len(operands)):
        needed = set(output).union(*inputs[index + 1 :])
        result, labels = _einsum_pair(
            result, labels, operands[index], inputs[index], needed
        )
    return _einsum_reduce(result, labels, output)


@functools.lru_cache(maxsize=256)
def _einsum_parse(equation, count):
    """The operands' index strings and the output's, checked against what `einsum` supports."""
    text = equation.replace(" ", "")
    if "." in text:
        raise NotImplementedError(f"einsum {equation!r}: ellipsis is not supported")
    left, arrow, output = text.partition("->")
    inputs = tuple(left.split(","))
    if len(inputs) != count:
        raise ValueError(
            f"einsum {equation!r}: {len(inputs)} operands in the equation, {count} given"
        )
    letters = "".join(inputs)
    if not all(term.isalpha() for term in inputs if term) or not (
        output.isalpha() or not output
    ):
        raise ValueError(f"einsum {equation!r}: subscripts must be letters")
    if not arrow:
        output = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    if len(set(output)) != len(output) or not set(output) <= set(letters):
        raise ValueError(f"einsum {equation!r}: invalid output subscripts")
    return inputs, output


def _einsum_diagonal(x, labels):
    """An operand whose index repeats (`ii`): its diagonal over each repeated pair, the index
    once, last (as `ops.diagonal` puts it)."""
    while len(set(labels)) != len(labels):
        letter = next(c for c in labels if labels.count(c) > 1)
        first = labels.index(letter)
        second = labels.index(letter, first + 1)
        x = ops.diagonal(x, 0, first, second)
        labels = (
            "".join(c for i, c in enumerate(labels) if i not in (first, second))
            + letter
        )
    return x, labels


def _einsum_reduce(x, labels, output):
    """Sum the indices of one operand that are not in `output`, then order it as `output`."""
    summed = tuple(i for i, c in enumerate(labels) if c not in output)
    if summed:
        x = ops.sum(x, summed)
        labels = "".join(c for c in labels if c in output)
    order = tuple(labels.index(c) for c in output)
    if order != tuple(range(len(order))):
        x = ops.transpose(x, order)
    return x


def _einsum_pair(a, a_labels, b, b_labels, needed):
    """Contract two operands as one batched matmul; keep the indices in `needed`."""
    a_keep = "".join(c for c in a_labels if c in b_labels or c in needed)
    b_keep = "".join(c for c in b_labels if c in a_labels or c in needed)
    a, b = _einsum_reduce(a, a_labels, a_keep), _einsum_reduce(b, b_labels, b_keep)
    sizes = {}
    for x, labels in ((a, a_keep), (b, b_keep)):
        for c, n in zip(labels, x.shape):
            sizes[c] = n if sizes.get(c, 1) == 1 else sizes[c]
    a = _einsum_expand(a, a_keep, sizes)
    b = _einsum_expand(b, b_keep, sizes)
    batch = "".join(c for c in a_keep if c in b_keep and c in needed)
    summed = "".join(c for c in a_keep if c in b_keep and c not in needed)
    a_only = "".join(c for c in a_keep if c not in b_keep)
    b_only = "".join(c for c in b_keep if c not in a_keep)
    lengths = [
        math.prod(sizes[c] for c in part) for part in (batch, a_only, summed, b_only)
    ]
    a = _einsum_reduce(a, a_keep, batch + a_only + summed)
    b = _einsum_reduce(b, b_keep, batch + summed + b_only)
    a = a.reshape(lengths[0], lengths[1], lengths[2])
    b = b.reshape(lengths[0], lengths[2], lengths[3])
    result = ops.bmm(a, b).reshape(tuple(sizes[c] for c in batch + a_only + b_only))
    return result, batch + a_only + b_only


def _einsum_expand(x, labels, sizes):
    """Broadcast the size-1 axes of an operand where the other operand's axis is longer."""
    shape = tuple(sizes[c] for c in labels)
    return x if tuple(x.shape) == shape else ops.broadcast_to(x, shape)


def meshgrid(*tensors, indexing=None):
    """`torch.meshgrid`: `ops.meshgrid` over tensors given one by one or as one list or tuple, as
    torch takes them; without `indexing`, torch's 'ij' (MindSpore's default is 'xy')."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    return ops.meshgrid(*tensors, indexing="ij" if indexing is None else indexing)


def roll(input, shifts, dims=None):
    """`torch.roll`, as a gather along each rolled axis (`ops.roll` has no CPU kernel)."""
    if dims is None:
        return roll(input.reshape(-1), shifts, 0).reshape(input.shape)
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(shifts) != len(dims):
        raise ValueError(
            f"roll: shifts ({len(shifts)}) and dims ({len(dims)}) must align"
        )
    for shift, dim in zip(shifts, dims):
        size = input.shape[dim]
        if shift % size:
            index = mindspore.Tensor((np.arange(size) - shift) % size, mindspore.int32)
            input = ops.gather(input, index, dim % input.ndim)
    return input


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """`torch.unique` of the flattened input, in ascending order: a sort, then
    `ops.unique_consecutive` (`ops.unique` keeps the order of first appearance)."""
    if dim is not None:
        return unique_dim(input, sorted, return_inverse, return_counts, dim)
    values, order = ops.sort(input.reshape(-1))
    output, inverse, counts = ops.unique_consecutive(
        values, return_inverse=True, return_counts=True
    )
    result = (output,)
    if return_inverse:
        inverse = ops.zeros_like(inverse).scatter(
            0, order.astype(mindspore.int64), inverse
        )
        result += (inverse.reshape(input.shape),)
    if return_counts:
        result += (counts,)
    return result[0] if len(result) == 1 else result


def equal(input, other):
    """`torch.equal(input, other)`: one Python bool, True when both tensors have the same shape and
    equal elements (after type promotion, as torch compares; NaN is never equal). Tensors of
    different shapes are unequal, never broadcast. Built on `ops.equal(...).all()`."""
    if tuple(input.shape) != tuple(other.shape):
        return False
    return bool(ops.equal(input, other).all())


def nonzero(input, *, out=None, as_tuple=False):
    """`torch.nonzero`: the indices of the non-zero elements, one row per element, by
    `ops.nonzero` (int64, as torch's); with `as_tuple=True` torch's tuple of one index tensor per
    dimension, the columns of those rows (a 0-d input counts as 1-d, as in torch)."""
    if out is not None:
        raise NotImplementedError("nonzero: out= is not supported")
    if not as_tuple:
        return ops.nonzero(input)
    if input.ndim == 0:
        input = input.reshape(1)
    indices = ops.nonzero(input)
    return tuple(indices[:, dim] for dim in range(input.ndim))


def where(condition, input=None, other=None):
    """`torch.where`: with `input` and `other`, the elementwise choice (`ops.where`, Python numbers
    taking the other operand's dtype); with the condition alone, torch's
    `nonzero(condition, as_tuple=True)`."""
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    if input is None or other is None:
        raise TypeError(
            "where() takes the condition alone, or the condition, input and other"
        )
    if not isinstance(input, mindspore.Tensor):
        input = mindspore.Tensor(input, other.dtype)
    if not isinstance(other, mindspore.Tensor):
        other = mindspore.Tensor(other, input.dtype)
    return ops.where(condition, input, other)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    """`torch.nn.functional.layer_norm`, on the `ops.LayerNorm` primitive (`ops.layer_norm` has no
    CPU kernel); a missing weight or bias is ones or zeros."""
    shape = (
        (normalized_shape,)
        if isinstance(normalized_shape, int)
        else tuple(normalized_shape)
    )
    if weight is None:
        weight = ops.ones(shape, input.dtype)
    if bias is None:
        bias = ops.zeros(shape, input.dtype)
    axis = input.ndim - len(shape)
    return _layer_norm_primitive(axis, float(eps))(input, weight, bias)[0]


@functools.lru_cache(maxsize=64)
def _layer_norm_primitive(axis, eps):
    return ops.LayerNorm(begin_norm_axis=axis, begin_params_axis=axis, epsilon=eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """`torch.nn.functional.rms_norm`: `x * rsqrt(mean(x**2) + eps) * weight` over the last dims,
    computed in float32 for half-precision inputs; eps defaults to that float type's epsilon."""
    count = 1 if isinstance(normalized_shape, int) else len(normalized_shape)
    dtype = input.dtype
    if dtype in (mindspore.float16, mindspore.bfloat16):
        input = input.astype(mindspore.float32)
    if eps is None:
        eps = float(
            np.finfo(np.float64 if dtype == mindspore.float64 else np.float32).eps
        )
    axes = tuple(range(input.ndim - count, input.ndim))
    result = input * ops.rsqrt(ops.mean(input * input, axes, keep_dims=True) + eps)
    result = result.astype(dtype)
    return result if weight is None else result * weight


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """`torch.nn.functional.normalize`: `x / max(norm_p(x, dim), eps)`, written into `out`
    when given."""
    norm = ops.norm(input, p, dim, keepdim=True)
    result = input / ops.clamp(norm, min=eps)
    if out is None:
        return result
    if tuple(out.shape) == tuple(result.shape):
        out.copy_(result)
    else:
        out.assign_value(result)  # torch resizes `out` to the result's shape
    return out


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    """`torch.nn.functional.group_norm`: `ops.group_norm`, which takes torch's arguments."""
    return ops.group_norm(input, num_groups, weight, bias, eps)


def batch_norm(
    input,
    running_mean,
    running_var,
    weight=None,
    bias=None,
    training=False,
    momentum=0.1,
    eps=1e-05,
):
    """`torch.nn.functional.batch_norm`, with torch's momentum convention; in training the running
    statistics (when given) are updated in place, with the unbiased variance as torch does.

    2-D and 4-D inputs with running statistics run on `ops.batch_norm`; other inputs, and calls
    without running statistics (timm's weight standardisation), are composed from reductions."""
    channels = input.shape[1]
    if weight is None:
        weight = ops.ones((channels,), input.dtype)
    if bias is None:
        bias = ops.zeros((channels,), input.dtype)
    if running_mean is not None and running_var is not None and input.ndim in (2, 4):
        return ops.batch_norm(
            input, running_mean, running_var, weight, bias, training, momentum, eps
        )
    shape = (1, channels) + (1,) * (input.ndim - 2)
    if training:
        axes = (0,) + tuple(range(2, input.ndim))
        mean = ops.mean(input, axes, keep_dims=True)
        var = ops.mean(ops.square(input - mean), axes, keep_dims=True)
        if running_mean is not None:
            ops.assign(
                running_mean,
                (1 - momentum) * running_mean + momentum * mean.reshape(-1),
            )
        if running_var is not None:
            count = input.size // channels
            unbiased = var.reshape(-1) * (count / max(count - 1, 1))
            ops.assign(running_var, (1 - momentum) * running_var + momentum * unbiased)
    else:
        mean, var = running_mean.reshape(shape), running_var.reshape(shape)
    scale = ops.rsqrt(var + eps) * weight.reshape(shape)
    return (input - mean) * scale + bias.reshape(shape)


def scaled_dot_product_attention(
    query,
    key,
    value,
    attn_mask=None,
    dropout_p=0.0,
    is_causal=False,
    scale=None,
    enable_gqa=False,
):
    """`torch.nn.functional.scaled_dot_product_attention`: softmax(q k^T * scale + mask) v, from
    batched matmuls. A boolean mask marks what takes part (True), a float mask is added; rows with
    nothing to attend to give zeros, as torch's do. Like torch, it applies dropout whenever
    dropout_p > 0 (callers pass 0 outside training)."""
    if enable_gqa:
        raise NotImplementedError(
            "scaled_dot_product_attention: enable_gqa=True is not supported; repeat the key "
            "and value heads to the query's (`repeat_interleave` on dim -3)"
        )
    if scale is None:
        scale = 1.0 / math.sqrt(query.shape[-1])
    query = query * scale
    batched = query.ndim >= 3 and query.shape[:-2] == key.shape[:-2] == value.shape[:-2]
    if batched:
        scores = _matmul_transpose_b(query, key)
    else:
        scores = ops.matmul(query, key.swapaxes(-2, -1))
    allowed = None
    if is_causal:
        if attn_mask is not None:
            raise ValueError(
                "scaled_dot_product_attention: an explicit attn_mask is not allowed with "
                "is_causal=True"
            )
        length, source = query.shape[-2], key.shape[-2]
        allowed = mindspore.Tensor(np.tril(np.ones((length, source), np.bool_)))
    elif attn_mask is not None and attn_mask.dtype == mindspore.bool_:
        allowed = attn_mask
    elif attn_mask is not None:
        scores = scores + attn_mask
    if attn_mask is None and not is_causal:
        weights = ops.softmax(scores, -1)
    else:
        if allowed is not None:
            scores = ops.masked_fill(scores, ops.logical_not(allowed), float("-inf"))
        # A row with nothing to attend to gives zeros, without NaN in the softmax or its gradient.
        empty = ops.amax(scores, -1, keepdims=True) == float("-inf")
        weights = ops.softmax(ops.masked_fill(scores, empty, 0.0), -1)
        weights = ops.masked_fill(weights, empty, 0.0)
    if dropout_p > 0.0:
        weights = ops.dropout(weights, p=dropout_p, training=True)
    return _matmul(weights, value) if batched else ops.matmul(weights, value)


# MindSpore 2.10's `ops.matmul` fails to differentiate some batched products that contract an
# axis of length 1; the batched-matmul primitives do not.
_matmul = ops.BatchMatMul()
_matmul_transpose_b = ops.BatchMatMul(transpose_b=True)


def avg_pool2d(
    input,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
):
    """`torch.nn.functional.avg_pool2d`: `ops.avg_pool2d`, which takes the padding per side
    (top, bottom, left, right) where torch takes it per dimension."""
    if isinstance(padding, (tuple, list)):
        padding = tuple(p for p in padding for _ in range(2))
    unbatched = input.ndim == 3
    result = ops.avg_pool2d(
        input[None] if unbatched else input,
        kernel_size,
        kernel_size if stride is None or stride == [] else stride,
        padding,
        ceil_mode,
        count_include_pad,
        divisor_override or 0,
    )
    return result[0] if unbatched else result


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """`torch.nn.functional.fold`: `ops.fold`, which takes the output size as a tensor."""
    if isinstance(output_size, int):
        output_size = (output_size, output_size)
    size = mindspore.Tensor(tuple(output_size), mindspore.int32)
    if input.ndim == 2:
        return ops.fold(input[None], size, kernel_size, dilation, padding, stride)[0]
    return ops.fold(input, size, kernel_size, dilation, padding, stride)


def interpolate(
    input,
    size=None,
    scale_factor=None,
    mode="nearest",
    align_corners=None,
    recompute_scale_factor=None,
    antialias=False,
):
    """`torch.nn.functional.interpolate`, as one matmul (a gather for the nearest modes) per
    resized axis with torch's sampling weights: nearest, nearest-exact, (bi/tri)linear, bicubic
    (torch's a=-0.75), area, and the antialiased bilinear/bicubic filters. MindSpore's bicubic weights differ from torch's, and it
    refuses integer scale factors and antialias."""
    spatial = input.ndim - 2
    linear = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}
    if mode in linear and input.ndim != linear[mode]:
        raise NotImplementedError(
            f"interpolate: mode {mode!r} needs a {linear[mode]}-D input"
        )
    if mode not in linear and mode not in ("nearest", "nearest-exact", "area"):
        raise NotImplementedError(f"interpolate: mode {mode!r} is not supported")
    if align_corners is not None and mode not in linear:
        raise ValueError(
            "interpolate: align_corners only goes with the linear and cubic modes"
        )
    if antialias and mode not in ("bilinear", "bicubic"):
        raise ValueError("interpolate: antialias only goes with bilinear and bicubic")
    if (size is None) == (scale_factor is None):
        raise ValueError("interpolate: give exactly one of size and scale_factor")
    ins = tuple(input.shape[2:])
    if size is not None:
        outs = (size,) * spatial if isinstance(size, int) else tuple(size)
        scales = (None,) * spatial
    else:
        factors = (
            tuple(scale_factor)
            if isinstance(scale_factor, (tuple, list))
            else (scale_factor,) * spatial
        )
        outs = tuple(math.floor(n * float(f)) for n, f in zip(ins, factors))
        scales = (
            (None,) * spatial if recompute_scale_factor else tuple(map(float, factors))
        )
    x = input
    for axis, (n_in, n_out, factor) in enumerate(zip(ins, outs, scales)):
        weights = _resize_weights(
            n_in, n_out, mode, bool(align_corners), factor, bool(antialias)
        )
        if weights is None:
            continue
        lead, rest = x.shape[: axis + 2], x.shape[axis + 3 :]
        if mode.startswith("nearest"):
            index = mindspore.Tensor(weights.argmax(axis=1), mindspore.int32)
            x = ops.gather(x, index, axis + 2)
        elif axis == spatial - 1:
            x = x.reshape(-1, n_in)
            x = ops.matmul(x, mindspore.Tensor(weights.T, x.dtype))
            x = x.reshape(lead + (n_out,))
        else:
            x = x.reshape(lead + (n_in, math.prod(rest)))
            x = ops.matmul(mindspore.Tensor(weights, x.dtype), x)
            x = x.reshape(lead + (n_out,) + rest)
    return x


@functools.lru_cache(maxsize=256)
def _resize_weights(n_in, n_out, mode, align_corners, factor, antialias):
    """The (n_out, n_in) matrix torch samples one axis with, or None where it is the identity."""
    out = np.arange(n_out)
    if mode == "area":
        starts = (out * n_in) // n_out
        ends = -((-(out + 1) * n_in) // n_out)
        columns = np.arange(n_in)
        inside = (columns >= starts[:, None]) & (columns < ends[:, None])
        matrix = inside / (ends - starts)[:, None]
    elif mode in ("nearest", "nearest-exact"):
        scale = (
            np.float32(1.0 / factor) if factor else np.float32(n_in) / np.float32(n_out)
        )
        if n_out == n_in:
            source = out
        elif n_out == 2 * n_in:
            source = out >> 1
        elif mode == "nearest":
            source = np.floor(out.astype(np.float32) * scale)
        else:
            source = np.floor(((out + 0.5) * np.float64(scale)).astype(np.float32))
        matrix = np.zeros((n_out, n_in))
        matrix[out, np.minimum(source.astype(np.int64), n_in - 1)] = 1.0
    elif antialias:
        matrix = _antialias_weights(n_in, n_out, mode, align_corners, factor)
    else:
        matrix = _interpolation_weights(n_in, n_out, mode, align_corners, factor)
    if n_in == n_out and np.array_equal(matrix, np.eye(n_in)):
        return None
    return matrix


def _source_scale(n_in, n_out, align_corners, factor):
    """torch's area_pixel_compute_scale."""
    if align_corners:
        return (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    return 1.0 / factor if factor else n_in / n_out


def _interpolation_weights(n_in, n_out, mode, align_corners, factor):
    """torch's linear and cubic weights (upsample_*_kernel on CPU), clamped at the borders."""
    scale = _source_scale(n_in, n_out, align_corners, factor)
    out = np.arange(n_out)
    cubic = mode == "bicubic"
    if align_corners:
        real = scale * out
    else:
        real = scale * (out + 0.5) - 0.5
        if not cubic:
            real = np.maximum(real, 0.0)
    index = np.minimum(np.floor(real).astype(np.int64), n_in - 1)
    t = np.clip(real - index, 0.0, 1.0)
    if cubic:
        taps = [index - 1, index, index + 1, index + 2]
        a = -0.75
        near = lambda x: ((a + 2) * x - (a + 3)) * x * x + 1
        far = lambda x: ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
        coefficients = [far(t + 1), near(t), near(1 - t), far(2 - t)]
    else:
        taps = [index, np.minimum(index + 1, n_in - 1)]
        coefficients = [1.0 - t, t]
    matrix = np.zeros((n_out, n_in))
    for tap, weight in zip(taps, coefficients):
        np.add.at(matrix, (out, np.clip(tap, 0, n_in - 1)), weight)
    return matrix


def _antialias_weights(n_in, n_out, mode, align_corners, factor):
    """torch's antialiased filters (_compute_weights_aa): a triangle, or a cubic with a=-0.5,
    stretched by the scale when downsampling, normalised per output."""
    scale = _source_scale(n_in, n_out, align_corners, factor)
    support = (2.0 if mode == "bilinear" else 4.0) * 0.5
    support = support * scale if scale >= 1.0 else support
    invscale = 1.0 / scale if scale >= 1.0 else 1.0
    center = scale * (np.arange(n_out) + 0.5)
    first = np.maximum(np.trunc(center - support + 0.5), 0).astype(np.int64)
    last = np.minimum(np.trunc(center + support + 0.5).astype(np.int64), n_in)
    columns = np.arange(n_in)
    x = np.abs((columns[None, :] - center[:, None] + 0.5) * invscale)
    if mode == "bilinear":
        weights = np.maximum(1.0 - x, 0.0)
    else:
        a = -0.5
        weights = np.where(
            x < 1.0,
            ((a + 2) * x - (a + 3)) * x * x + 1,
            np.where(x < 2.0, (((x - 5) * x + 8) * x - 4) * a, 0.0),
        )
    inside = (columns[None, :] >= first[:, None]) & (columns[None, :] < last[:, None])
    weights = np.where(inside, weights, 0.0)
    total = weights.sum(axis=1, keepdims=True)
    return np.where(total != 0.0, weights / np.where(total == 0.0, 1.0, total), 0.0)


# Activation functions with torch's signatures, for code that keeps them as values
# (`act_fns = dict(relu=F.relu, silu=F.silu)`) or passes `inplace=True`.
def _in_place(function, input, inplace):
    """``function(input)``; torch's `inplace=True` also writes the result into the input and
    returns the input, so code that reads the input afterwards sees the new values. The function
    then reads a copy: its gradient needs the values it read, which the write replaces. Where an
    earlier operation's gradient needs them, `copy_` raises, as torch does."""
    if not inplace:
        return function(input)
    result = function(input * 1)
    input.copy_(result)
    return input


def relu(input, inplace=False):
    """`torch.nn.functional.relu`: `ops.relu`."""
    return _in_place(ops.relu, input, inplace)


def relu6(input, inplace=False):
    """`torch.nn.functional.relu6`: `ops.relu6`."""
    return _in_place(ops.relu6, input, inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """`torch.nn.functional.leaky_relu`: `ops.leaky_relu`."""
    return _in_place(lambda x: ops.leaky_relu(x, negative_slope), input, inplace)


def elu(input, alpha=1.0, inplace=False):
    """`torch.nn.functional.elu`: relu(x) + alpha * expm1(min(x, 0))."""
    return _in_place(
        lambda x: ops.relu(x) + alpha * ops.expm1(ops.minimum(x, 0.0)), input, inplace
    )


def celu(input, alpha=1.0, inplace=False):
    """`torch.nn.functional.celu`: relu(x) + alpha * expm1(min(x, 0) / alpha)."""
    return _in_place(
        lambda x: ops.relu(x) + alpha * ops.expm1(ops.minimum(x, 0.0) / alpha),
        input,
        inplace,
    )


def selu(input, inplace=False):
    """`torch.nn.functional.selu`: scale * elu(x, alpha) with torch's constants."""
    alpha, scale = 1.6732632423543772, 1.0507009873554805
    return _in_place(
        lambda x: scale * (ops.relu(x) + alpha * ops.expm1(ops.minimum(x, 0.0))),
        input,
        inplace,
    )


def silu(input, inplace=False):
    """`torch.nn.functional.silu`: x * sigmoid(x)."""
    return _in_place(lambda x: x * ops.sigmoid(x), input, inplace)


def mish(input, inplace=False):
    """`torch.nn.functional.mish`: `ops.mish`."""
    return _in_place(ops.mish, input, inplace)


def hardsigmoid(input, inplace=False):
    """`torch.nn.functional.hardsigmoid`: relu6(x + 3) / 6."""
    return _in_place(lambda x: ops.relu6(x + 3.0) / 6.0, input, inplace)


def hardswish(input, inplace=False):
    """`torch.nn.functional.hardswish`: x * relu6(x + 3) / 6."""
    return _in_place(lambda x: x * ops.relu6(x + 3.0) / 6.0, input, inplace)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """`torch.nn.functional.hardtanh`: x clamped to [min_val, max_val]."""
    return _in_place(lambda x: ops.clamp(x, min_val, max_val), input, inplace)


def _threshold(input, limit, value, inplace):
    return _in_place(
        lambda x: ops.where(x > limit, x, ops.full_like(x, value)), input, inplace
    )


def threshold(input, threshold, value, inplace=False):
    """`torch.nn.functional.threshold`: x where x > threshold, else value."""
    return _threshold(input, threshold, value, inplace)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """`torch.nn.functional.rrelu`: in training, negative inputs times a slope drawn uniformly
    from [lower, upper] per element; otherwise the fixed slope (lower + upper) / 2."""

    def randomized(x):
        if training:
            low, high = (
                mindspore.Tensor(lower, x.dtype),
                mindspore.Tensor(upper, x.dtype),
            )
            slope = ops.uniform(x.shape, low, high, dtype=x.dtype)
        else:
            slope = (lower + upper) / 2
        return ops.where(x >= 0, x, x * slope)

    return _in_place(randomized, input, inplace)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """`torch.nn.functional.gumbel_softmax`: `ops.gumbel_softmax` with a float `tau` (torch
    takes an int too; `eps` is unused there as well)."""
    return ops.gumbel_softmax(logits, float(tau), hard, dim)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """`torch.nn.functional.log_softmax` over `dim` (without it, torch's
    legacy choice: axis 0 for 0-, 1- and 3-D inputs, else axis 1), on the input cast to
    `dtype` first when given."""
    if dtype is not None:
        input = input.astype(dtype)
    if dim is None:
        dim = 0 if input.ndim in (0, 1, 3) else 1
    # x - max - log(sum(exp(x - max))), torch's formula (MindSpore's kernel rounds differently).
    shifted = input - input.max(axis=dim, keepdims=True)
    return shifted - ops.log(ops.exp(shifted).sum(axis=dim, keepdims=True))


def log_softmax_over(input, dim, dtype=None):
    """`torch.log_softmax(input, dim, dtype)` and `x.log_softmax(dim, dtype)`: the functional's
    composition."""
    return log_softmax(input, dim, dtype=dtype)


def relu_(input):
    """`torch.relu_` / `torch.nn.functional.relu_`: relu written into the input."""
    return relu(input, inplace=True)


def leaky_relu_(input, negative_slope=0.01):
    """`torch.nn.functional.leaky_relu_`: leaky_relu written into the input."""
    return leaky_relu(input, negative_slope, inplace=True)


def elu_(input, alpha=1.0):
    """`torch.nn.functional.elu_`: elu written into the input."""
    return elu(input, alpha, inplace=True)


def celu_(input, alpha=1.0):
    """`torch.nn.functional.celu_`: celu written into the input."""
    return celu(input, alpha, inplace=True)


def selu_(input):
    """`torch.selu_`: selu written into the input."""
    return selu(input, inplace=True)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """`torch.nn.functional.hardtanh_`: hardtanh written into the input."""
    return hardtanh(input, min_val, max_val, inplace=True)


def threshold_(input, threshold, value):
    """`torch.nn.functional.threshold_`: threshold written into the input."""
    return _threshold(input, threshold, value, True)


def full(
    size,
    fill_value,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
):
    """`torch.full(size, fill_value)`: `ops.full` given torch's dtype.

    Without a dtype torch takes it from the fill value (a tensor's counts by its number): bool,
    int64 for an integer, complex64 for a complex number, float32 otherwise; `ops.full` alone makes
    int64 whatever the value. `layout`, `device` and `pin_memory` only place memory."""
    if out is not None:
        raise NotImplementedError(
            "full: out= is not supported; use the returned tensor"
        )
    if requires_grad:
        raise NotImplementedError(
            "full: requires_grad=True; MindSpore has no tape, wrap the result in "
            "mindspore.Parameter to differentiate with respect to it"
        )
    if isinstance(fill_value, mindspore.Tensor):
        fill_value = fill_value.item()
    if dtype is None:
        if isinstance(fill_value, (bool, np.bool_)):
            dtype = mindspore.bool_
        elif isinstance(fill_value, (int, np.integer)):
            dtype = mindspore.int64
        elif isinstance(fill_value, (complex, np.complexfloating)):
            dtype = mindspore.complex64
        else:
            dtype = mindspore.float32
    return ops.full(tuple(size), fill_value, dtype=dtype)


class Generator:
    """`torch.Generator(device='cpu')`: a random stream of its own, seeded with `manual_seed`.

    Built on NumPy's PCG64: the numbers are not torch's (another algorithm), but the same seed gives
    the same stream on every run, which is what seeding a generator is for. The companion's
    `randperm`, `randint`, `rand`, `randn` and `multinomial` draw from it when given one."""

    _DEFAULT_SEED = 67280421310721  # torch's seed for a new generator

    def __init__(self, device="cpu"):
        self.device = device
        self.manual_seed(self._DEFAULT_SEED)

    def manual_seed(self, seed):
        self._seed = int(seed) % (1 << 64)
        self._numpy = np.random.Generator(np.random.PCG64(self._seed))
        return self

    def seed(self):
        """Seed from the operating system's entropy, and return the seed."""
        self.manual_seed(np.random.SeedSequence().entropy)
        return self._seed

    def initial_seed(self):
        return self._seed

    def get_state(self):
        return dict(self._numpy.bit_generator.state)

    def set_state(self, new_state):
        self._numpy.bit_generator.state = new_state
        return self


def _drawn(name, generator, out, requires_grad):
    """The NumPy stream of a companion Generator (checking what cannot be reproduced)."""
    if out is not None:
        raise NotImplementedError(
            f"{name}: out= is not supported; use the returned tensor"
        )
    if requires_grad:
        raise NotImplementedError(
            f"{name}: requires_grad=True; wrap the result in mindspore.Parameter instead"
        )
    if generator is None:
        return np.random.default_rng(int(ops.randint(0, 2**31 - 1, (1,)).asnumpy()[0]))
    return generator._numpy


def _shape(size):
    return (
        tuple(size[0])
        if len(size) == 1 and isinstance(size[0], (tuple, list))
        else size
    )


def randperm(
    n,
    *,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
):
    """`torch.randperm(n, generator=g)`: a permutation of 0..n-1 drawn from `g` (int64 unless
    `dtype` says otherwise)."""
    stream = _drawn("randperm", generator, out, requires_grad)
    return mindspore.Tensor(stream.permutation(int(n)), dtype or mindspore.int64)


def randint(
    *args,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    low=None,
    high=None,
    size=None,
):
    """`torch.randint([low=0,] high, size, generator=g)`: integers in [low, high) drawn from `g`
    (int64 unless `dtype` says otherwise)."""
    values = list(args)
    if size is None:
        size = values.pop()
    if high is None:
        high = values.pop()
    if low is None:
        low = values.pop() if values else 0
    stream = _drawn("randint", generator, out, requires_grad)
    drawn = stream.integers(int(low), int(high), tuple(size))
    return mindspore.Tensor(drawn, dtype or mindspore.int64)


def rand(
    *size,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
):
    """`torch.rand(*size, generator=g)`: uniform numbers in [0, 1) drawn from `g` (float32)."""
    stream = _drawn("rand", generator, out, requires_grad)
    drawn = stream.random(_shape(size), dtype=np.float32)
    return mindspore.Tensor(drawn, dtype or mindspore.float32)


def randn(
    *size,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
):
    """`torch.randn(*size, generator=g)`: standard normal numbers drawn from `g` (float32)."""
    stream = _drawn("randn", generator, out, requires_grad)
    drawn = stream.standard_normal(_shape(size), dtype=np.float32)
    return mindspore.Tensor(drawn, dtype or mindspore.float32)


def normal(
    mean,
    std=1.0,
    size=None,
    *,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
):
    """`torch.normal` with torch's overloads: numbers `mean`, `std` and a `size` (float32, or
    `dtype`); or tensors (one of them may be a number), broadcast together, one draw per element
    in their dtype. Standard normal draws, as `randn` makes them (NumPy's, seeded from
    MindSpore's generator or from a companion Generator), scaled by `std` and shifted by `mean`."""
    stream = _drawn("normal", generator, out, requires_grad)
    tensors = [t for t in (mean, std) if isinstance(t, mindspore.Tensor)]
    if size is not None:
        if tensors:
            raise TypeError("normal: size= is given with numbers mean and std only")
        drawn = stream.standard_normal(tuple(size)) * std + mean
        return mindspore.Tensor(drawn.astype(np.float32), dtype or mindspore.float32)
    if not tensors:
        raise TypeError("normal: numbers mean and std need a size")
    shape = np.broadcast_shapes(*(t.shape for t in tensors))
    noise = mindspore.Tensor(stream.standard_normal(shape, dtype=np.float32))
    return noise.astype(tensors[0].dtype) * std + mean


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """`torch.multinomial(input, num_samples, replacement, generator=g)`: indices drawn from `g`
    with the weights of each row of `input` (one or two dimensions), int64."""
    stream = _drawn("multinomial", generator, out, False)
    weights = input.asnumpy().astype(np.float64)
    rows = weights.reshape(-1, weights.shape[-1])
    drawn = np.stack(
        [
            stream.choice(
                row.size, int(num_samples), replace=bool(replacement), p=row / row.sum()
            )
            for row in rows
        ]
    )
    return mindspore.Tensor(
        drawn.reshape(*weights.shape[:-1], int(num_samples)), mindspore.int64
    )


def cat_skipping_empty(tensors, dim=0, *, axis=None, out=None):
    """`torch.cat(tensors, dim)` where a tensor may be torch's 1-D empty placeholder
    (`torch.tensor([])`, a cache before its first update): torch skips tensors of shape (0,),
    MindSpore's `ops.cat` refuses them. The others are concatenated with `ops.cat`."""
    axis = dim if axis is None else axis
    kept = [t for t in tensors if tuple(t.shape) != (0,)]
    if not kept:
        return tensors[0]
    return ops.cat(kept, axis=axis)
