"""``mindspore.ops`` functions on the shared engine (MindSpore argument names and defaults)."""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import core
from .. import _dtype
from .._grad import stop_gradient  # noqa: F401
from .._missing import missing
from .._tensor import Tensor, as_tensor, wrap


def _t(x: Any) -> core.Tensor:
    return x if isinstance(x, core.Tensor) else Tensor(x)


def _raw(x: Any) -> Any:
    return x._data if isinstance(x, core.Tensor) else x


def _axis(axis: Any) -> Any:
    if isinstance(axis, list):
        return tuple(axis)
    if isinstance(axis, tuple) and not axis:
        return None
    return axis


def _np_dtype(dtype: Any, default: Any = np.float32) -> np.dtype:
    return np.dtype(default) if dtype is None else _dtype.to_numpy(dtype)


def _size(size: Sequence[Any]) -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(int(s) for s in size[0])
    return tuple(int(s) for s in size)


def _map(fn, value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return tuple(_map(fn, v) for v in value)
    return fn(value)


# --- elementwise -------------------------------------------------------------------------------
def add(input: Any, other: Any) -> Tensor:
    return core.add(input, other)


def sub(input: Any, other: Any) -> Tensor:
    return core.sub(input, other)


def mul(input: Any, other: Any) -> Tensor:
    return core.mul(input, other)


def div(input: Any, other: Any, *, rounding_mode: Any = None) -> Tensor:
    if rounding_mode is not None:
        raise missing(f"mindspore.ops.div(rounding_mode={rounding_mode!r})")
    return core.div(input, other)


def pow(input: Any, exponent: Any) -> Tensor:
    return core.pow(input, exponent)


def neg(input: Any) -> Tensor:
    return core.neg(_t(input))


def abs(input: Any) -> Tensor:
    return core.abs(_t(input))


def exp(input: Any) -> Tensor:
    return core.exp(_t(input))


def log(input: Any) -> Tensor:
    return core.log(_t(input))


def log1p(input: Any) -> Tensor:
    return core.log1p(_t(input))


def sqrt(x: Any) -> Tensor:
    return core.sqrt(_t(x))


def rsqrt(input: Any) -> Tensor:
    return core.div(1.0, core.sqrt(_t(input)))


def square(input: Any) -> Tensor:
    x = _t(input)
    return core.mul(x, x)


def sin(input: Any) -> Tensor:
    return core.sin(_t(input))


def cos(input: Any) -> Tensor:
    return core.cos(_t(input))


def tanh(input: Any) -> Tensor:
    return core.tanh(_t(input))


def sigmoid(input: Any) -> Tensor:
    return core.sigmoid(_t(input))


def relu(input: Any) -> Tensor:
    return core.relu(_t(input))


def relu6(x: Any) -> Tensor:
    return core.clamp(_t(x), 0.0, 6.0)


def gelu(input: Any, approximate: str = "none") -> Tensor:
    return core.gelu(_t(input), approximate)


def silu(input: Any) -> Tensor:
    x = _t(input)
    return core.mul(x, core.sigmoid(x))


def leaky_relu(input: Any, alpha: float = 0.2) -> Tensor:
    x = _t(input)
    return core.where(x._data > 0, x, core.mul(x, alpha))


def elu(input_x: Any, alpha: float = 1.0) -> Tensor:
    x = _t(input_x)
    return core.where(
        x._data > 0, x, core.mul(core.sub(core.exp(core.minimum(x, 0.0)), 1.0), alpha)
    )


def softplus(input: Any, beta: float = 1, threshold: float = 20) -> Tensor:
    x = _t(input)
    scaled = core.mul(x, float(beta))
    soft = core.div(
        core.log1p(core.exp(core.minimum(scaled, float(threshold)))), float(beta)
    )
    return core.where(scaled._data > threshold, x, soft)


def erf(input: Any) -> Tensor:
    return core.erf(_t(input))


def sign(input: Any) -> Tensor:
    return core.sign(_t(input))


def floor(input: Any) -> Tensor:
    return core.floor(_t(input))


def ceil(input: Any) -> Tensor:
    return core.ceil(_t(input))


def round(input: Any) -> Tensor:
    return core.round(_t(input))


def maximum(input: Any, other: Any) -> Tensor:
    return core.maximum(input, other)


def minimum(input: Any, other: Any) -> Tensor:
    return core.minimum(input, other)


def clamp(input: Any, min: Any = None, max: Any = None) -> Tensor:
    return core.clamp(
        _t(input),
        None if min is None else _raw(min),
        None if max is None else _raw(max),
    )


clip = clamp


def where(condition: Any, input: Any, other: Any) -> Tensor:
    return core.where(_raw(condition), input, other)


def equal(input: Any, other: Any) -> Tensor:
    return core.eq(input, other)


def not_equal(input: Any, other: Any) -> Tensor:
    return core.ne(input, other)


def less(input: Any, other: Any) -> Tensor:
    return core.lt(input, other)


def less_equal(input: Any, other: Any) -> Tensor:
    return core.le(input, other)


def greater(input: Any, other: Any) -> Tensor:
    return core.gt(input, other)


def greater_equal(input: Any, other: Any) -> Tensor:
    return core.ge(input, other)


eq, ne, lt, le, gt, ge = equal, not_equal, less, less_equal, greater, greater_equal


def logical_and(input: Any, other: Any) -> Tensor:
    return core.logical_and(input, other)


def logical_or(input: Any, other: Any) -> Tensor:
    return core.logical_or(input, other)


def logical_not(input: Any) -> Tensor:
    return core.logical_not(_t(input))


def isfinite(input: Any) -> Tensor:
    return wrap(np.isfinite(_raw(input)))


def isnan(input: Any) -> Tensor:
    return wrap(np.isnan(_raw(input)))


def cast(input: Any, dtype: Any) -> Tensor:
    return core.cast(_t(input), _dtype.to_numpy(dtype))


def depend(value: Any, expr: Any) -> Any:
    return value


def identity(input: Any) -> Any:
    return input


def assign(variable: Any, value: Any) -> Any:
    variable._data[...] = _raw(value)
    return variable


def dtype(input: Any) -> _dtype.DType:
    return input.dtype


def shape(input: Any) -> tuple:
    return tuple(input.shape)


def size(input: Any) -> int:
    return int(input._data.size)


def rank(input_x: Any) -> int:
    return input_x.ndim


# --- reductions ----------------------------------------------------------------------------------
def sum(
    input: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None
) -> Tensor:
    return _t(input).sum(dim, dtype, keepdim)


def mean(x: Any, axis: Any = None, keep_dims: bool = False) -> Tensor:
    return _t(x).mean(axis, keep_dims)


def prod(
    input: Any, axis: Any = None, keep_dims: bool = False, dtype: Any = None
) -> Tensor:
    return wrap(np.prod(_raw(input), axis=_axis(axis), keepdims=keep_dims))


def max(
    input: Any,
    axis: Any = None,
    keepdims: bool = False,
    *,
    initial: Any = None,
    where: Any = None,
) -> tuple:
    if initial is not None or where is not None:
        raise missing("mindspore.ops.max(initial=..., where=...)")
    x = _t(input)
    index = np.argmax(x._data) if axis is None else np.argmax(x._data, axis=axis)
    if keepdims and axis is not None:
        index = np.expand_dims(index, axis)
    return core.max(x, axis, keepdims), wrap(np.asarray(index, np.int64))


def min(
    input: Any,
    axis: Any = None,
    keepdims: bool = False,
    *,
    initial: Any = None,
    where: Any = None,
) -> tuple:
    if initial is not None or where is not None:
        raise missing("mindspore.ops.min(initial=..., where=...)")
    x = _t(input)
    index = np.argmin(x._data) if axis is None else np.argmin(x._data, axis=axis)
    if keepdims and axis is not None:
        index = np.expand_dims(index, axis)
    return core.min(x, axis, keepdims), wrap(np.asarray(index, np.int64))


def amax(input: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    return core.max(_t(input), _axis(axis), keepdims)


def amin(input: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    return core.min(_t(input), _axis(axis), keepdims)


def argmax(input: Any, dim: Any = None, keepdim: bool = False) -> Tensor:
    return core.argmax(_t(input), dim, keepdim)


def argmin(input: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    return core.argmin(_t(input), axis, keepdims)


def logsumexp(input: Any, dim: Any, keepdim: bool = False) -> Tensor:
    return core.logsumexp(_t(input), _axis(dim), keepdim)


def norm(
    A: Any,
    ord: Any = None,
    dim: Any = None,
    keepdim: bool = False,
    *,
    dtype: Any = None,
) -> Tensor:
    vector_two_norm = ord == 2 and isinstance(dim, int)
    if ord not in (None, "fro") and not vector_two_norm:
        raise missing(f"mindspore.ops.norm(ord={ord!r}, dim={dim!r})")
    x = _t(A)
    return core.sqrt(core.sum(core.mul(x, x), _axis(dim), keepdim))


def all(input: Any, axis: Any = None, keep_dims: bool = False) -> Tensor:
    return wrap(np.all(_raw(input), axis=_axis(axis), keepdims=keep_dims))


def any(input: Any, axis: Any = None, keep_dims: bool = False) -> Tensor:
    return wrap(np.any(_raw(input), axis=_axis(axis), keepdims=keep_dims))


def cumsum(x: Any, axis: int, dtype: Any = None) -> Tensor:
    return wrap(np.cumsum(_raw(x), axis=axis))


def var(input: Any, axis: Any = None, ddof: int = 0, keepdims: bool = False) -> Tensor:
    return core.var(_t(input), _axis(axis), ddof, keepdims)


def std(input: Any, axis: Any = None, ddof: int = 0, keepdims: bool = False) -> Tensor:
    return core.sqrt(var(input, axis, ddof, keepdims))


# --- shape ---------------------------------------------------------------------------------------
def matmul(input: Any, other: Any) -> Tensor:
    return core.matmul(input, other)


def dense(input: Any, weight: Any, bias: Any = None) -> Tensor:
    return core.linear(_t(input), weight, bias)


def reshape(input: Any, shape: Any) -> Tensor:
    return core.reshape(_t(input), tuple(shape))


def transpose(input: Any, dims: Any) -> Tensor:
    return core.transpose(_t(input), tuple(dims))


def permute(input: Any, axis: Any) -> Tensor:
    return core.transpose(_t(input), tuple(axis))


def swapaxes(input: Any, axis0: int, axis1: int) -> Tensor:
    return core.swapaxes(_t(input), axis0, axis1)


def squeeze(input: Any, axis: Any = None) -> Tensor:
    return core.squeeze(_t(input), _axis(axis))


def unsqueeze(input: Any, dim: int) -> Tensor:
    return core.unsqueeze(_t(input), dim)


def expand_dims(input_x: Any, axis: int) -> Tensor:
    return core.unsqueeze(_t(input_x), axis)


def flatten(
    input: Any, order: str = "C", *, start_dim: int = 1, end_dim: int = -1
) -> Tensor:
    x = _t(input)
    if x.ndim == 0:
        return core.reshape(x, (1,))
    return core.flatten(x, start_dim, end_dim)


def broadcast_to(input: Any, shape: Any) -> Tensor:
    x = _t(input)
    shape = tuple(
        x.shape[i - len(shape) + x.ndim] if s == -1 else s for i, s in enumerate(shape)
    )
    return core.broadcast_to(x, shape)


def tile(input: Any, dims: Any) -> Tensor:
    return _t(input).tile(dims)


def concat(tensors: Sequence[Any], axis: int = 0) -> Tensor:
    return core.concat(list(tensors), axis)


cat = concat


def stack(tensors: Sequence[Any], axis: int = 0) -> Tensor:
    return core.stack(list(tensors), axis)


def split(tensor: Any, split_size_or_sections: Any, axis: int = 0) -> tuple:
    return tuple(core.split(_t(tensor), split_size_or_sections, axis))


def chunk(input: Any, chunks: int, axis: int = 0) -> tuple:
    return tuple(core.chunk(_t(input), chunks, axis))


def gather(
    input_params: Any, input_indices: Any, axis: int, batch_dims: int = 0
) -> Tensor:
    """``np.take`` semantics (torch's ``index_select`` generalised), not torch.gather."""
    if batch_dims:
        raise missing("mindspore.ops.gather(batch_dims != 0)")
    x = _t(input_params)
    axis = axis % x.ndim
    index = (slice(None),) * axis + (np.asarray(_raw(input_indices)),)
    return core.getitem(x, index)


def gather_elements(input: Any, dim: int, index: Any) -> Tensor:
    return core.gather(_t(input), dim, np.asarray(_raw(index)))


def gather_d(x: Any, dim: int, index: Any) -> Tensor:
    return gather_elements(x, dim, index)


def one_hot(
    indices: Any, depth: int, on_value: Any = 1, off_value: Any = 0, axis: int = -1
) -> Tensor:
    ids = np.asarray(_raw(indices))
    on, off = np.asarray(_raw(on_value)), np.asarray(_raw(off_value))
    eye = ids[..., None] == np.arange(depth)
    out = np.where(eye, on, off).astype(np.result_type(on, off))
    if axis != -1:
        out = np.moveaxis(out, -1, axis)
    return wrap(out)


def pad(
    input_x: Any, padding: Any, mode: str = "constant", value: Any = None
) -> Tensor:
    if mode != "constant":
        raise missing(f"mindspore.ops.pad(mode={mode!r})")
    x = _t(input_x)
    pads = [(0, 0)] * x.ndim
    padding = tuple(padding)
    for i in range(len(padding) // 2):
        pads[x.ndim - 1 - i] = (padding[2 * i], padding[2 * i + 1])
    return core.pad(x, tuple(pads), 0.0 if value is None else float(value))


def topk(
    input: Any, k: int, dim: Any = None, largest: bool = True, sorted: bool = True
) -> tuple:
    x = np.asarray(_raw(input))
    axis = -1 if dim is None else dim
    order = np.argsort(-x if largest else x, axis=axis, kind="stable")
    index = np.take(order, np.arange(k), axis=axis)
    return core.gather(_t(input), axis, index), wrap(index.astype(np.int32))


def sort(input_x: Any, axis: int = -1, descending: bool = False) -> tuple:
    x = np.asarray(_raw(input_x))
    order = np.argsort(-x if descending else x, axis=axis, kind="stable")
    return core.gather(_t(input_x), axis, order), wrap(order.astype(np.int32))


# --- creation and randomness ---------------------------------------------------------------------
def zeros(size: Any, dtype: Any = None) -> Tensor:
    size = (size,) if isinstance(size, int) else tuple(size)
    return wrap(np.zeros(size, _np_dtype(dtype)))


def ones(shape: Any, dtype: Any = None) -> Tensor:
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return wrap(np.ones(shape, _np_dtype(dtype)))


def full(size: Any, fill_value: Any, *, dtype: Any = None) -> Tensor:
    size = (size,) if isinstance(size, int) else tuple(size)
    value = _raw(fill_value)
    if dtype is None:
        dtype = (
            np.float32
            if isinstance(value, float)
            else np.int64
            if isinstance(value, int)
            else np.asarray(value).dtype
        )
    return wrap(np.full(size, value, _dtype.to_numpy(dtype)))


def fill(type: Any, shape: Any, value: Any) -> Tensor:
    return full(shape, value, dtype=type)


def zeros_like(input: Any, *, dtype: Any = None) -> Tensor:
    x = np.asarray(_raw(input))
    return wrap(np.zeros(x.shape, x.dtype if dtype is None else _dtype.to_numpy(dtype)))


def ones_like(input: Any, *, dtype: Any = None) -> Tensor:
    x = np.asarray(_raw(input))
    return wrap(np.ones(x.shape, x.dtype if dtype is None else _dtype.to_numpy(dtype)))


def arange(
    start: Any = 0, end: Any = None, step: Any = 1, *, dtype: Any = None
) -> Tensor:
    start, end, step = _raw(start), _raw(end), _raw(step)
    if end is None:
        start, end = 0, start
    floats = any_float(start, end, step)
    default = np.float32 if floats else np.int64
    return wrap(np.arange(start, end, step).astype(_np_dtype(dtype, default)))


def any_float(*values: Any) -> bool:
    return builtins.any(
        isinstance(v, float) or np.asarray(v).dtype.kind == "f" for v in values
    )


def linspace(start: Any, end: Any, steps: int) -> Tensor:
    return wrap(
        np.linspace(float(_raw(start)), float(_raw(end)), int(steps)).astype(np.float32)
    )


def eye(n: int, m: Any = None, dtype: Any = None) -> Tensor:
    return wrap(np.eye(n, m, dtype=_np_dtype(dtype)))


def randn(*size: Any, dtype: Any = None, seed: Any = None) -> Tensor:
    return wrap(core.rng_normal(_size(size), 0.0, 1.0, _np_dtype(dtype)))


def standard_normal(shape: Any, seed: Any = None) -> Tensor:
    return wrap(core.rng_normal(tuple(shape), 0.0, 1.0))


def normal(shape: Any, mean: Any, stddev: Any, seed: Any = None) -> Tensor:
    return wrap(core.rng_normal(tuple(shape), float(_raw(mean)), float(_raw(stddev))))


def rand(*size: Any, dtype: Any = None, seed: Any = None) -> Tensor:
    return wrap(core.rng_uniform(_size(size), 0.0, 1.0, _np_dtype(dtype)))


def uniform(
    shape: Any, minval: Any, maxval: Any, seed: Any = None, dtype: Any = None
) -> Tensor:
    low, high = _raw(minval), _raw(maxval)
    if np.asarray(low).dtype.kind in "iu" and np.asarray(high).dtype.kind in "iu":
        return wrap(
            core.rng_randint(int(low), int(high), tuple(shape)).astype(np.int32)
        )
    return wrap(
        core.rng_uniform(tuple(shape), float(low), float(high), _np_dtype(dtype))
    )


def randint(
    low: int, high: int, size: Any, seed: Any = None, *, dtype: Any = None
) -> Tensor:
    return wrap(
        core.rng_randint(int(low), int(high), tuple(size)).astype(
            _np_dtype(dtype, np.int64)
        )
    )


def randperm(n: int, seed: int = 0, offset: int = 0, dtype: Any = None) -> Tensor:
    return wrap(core.rng_permutation(int(n)).astype(_np_dtype(dtype, np.int64)))


# --- neural network ------------------------------------------------------------------------------
def softmax(input: Any, axis: int = -1, *, dtype: Any = None) -> Tensor:
    x = _t(input) if dtype is None else cast(input, dtype)
    return core.softmax(x, axis)


def log_softmax(logits: Any, axis: int = -1) -> Tensor:
    return core.log_softmax(_t(logits), axis)


def dropout(
    input: Any, p: float = 0.5, training: bool = True, seed: Any = None
) -> Tensor:
    return core.dropout(_t(input), p, training)


def conv2d(
    input: Any,
    weight: Any,
    bias: Any = None,
    stride: Any = 1,
    pad_mode: str = "valid",
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    from ..nn._conv import conv2d_ms

    return conv2d_ms(
        _t(input), weight, bias, stride, pad_mode, padding, dilation, groups
    )


def max_pool2d(
    x: Any,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    return_indices: bool = False,
    ceil_mode: bool = False,
) -> Tensor:
    if return_indices:
        raise missing("mindspore.ops.max_pool2d(return_indices=True)")
    return core.max_pool2d(_t(x), kernel_size, stride, padding, dilation, ceil_mode)


def avg_pool2d(
    input_x: Any,
    kernel_size: Any = 1,
    stride: Any = 1,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: Any = 0,
) -> Tensor:
    return core.avg_pool2d(
        _t(input_x),
        kernel_size,
        stride,
        padding,
        ceil_mode,
        count_include_pad,
        divisor_override or None,
    )


def layer_norm(
    input: Any,
    normalized_shape: Any,
    weight: Any = None,
    bias: Any = None,
    eps: float = 1e-5,
) -> Tensor:
    return core.layer_norm(
        _t(input),
        tuple(normalized_shape)
        if not isinstance(normalized_shape, int)
        else normalized_shape,
        weight,
        bias,
        eps,
    )


def batch_norm(
    input_x: Any,
    running_mean: Any,
    running_var: Any,
    weight: Any,
    bias: Any,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    return core.batch_norm(
        _t(input_x), running_mean, running_var, weight, bias, training, momentum, eps
    )


def embedding(
    input: Any,
    weight: Any,
    padding_idx: Any = None,
    max_norm: Any = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
) -> Tensor:
    if max_norm is not None or scale_grad_by_freq:
        raise missing("mindspore.ops.embedding(max_norm/scale_grad_by_freq)")
    return core.embedding(weight, np.asarray(_raw(input)), padding_idx)


# --- losses --------------------------------------------------------------------------------------
def cross_entropy(
    input: Any,
    target: Any,
    weight: Any = None,
    ignore_index: int = -100,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    if (
        isinstance(target, core.Tensor)
        and target._data.dtype.kind == "f"
        and weight is None
        and not label_smoothing
    ):
        # Class probabilities: keep the target in the graph, as MindSpore differentiates it too.
        axis = 1 if input.ndim > 1 else 0
        loss = core.neg(
            core.sum(core.mul(core.log_softmax(_t(input), axis), target), axis)
        )
        if reduction == "mean":
            return core.div(core.sum(loss), float(builtins.max(loss._data.size, 1)))
        return core.sum(loss) if reduction == "sum" else loss
    return core.cross_entropy(
        _t(input),
        _raw(target),
        reduction,
        ignore_index,
        label_smoothing,
        _raw(weight) if weight is not None else None,
    )


def nll_loss(
    inputs: Any,
    target: Any,
    weight: Any = None,
    ignore_index: int = -100,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    if label_smoothing:
        raise missing("mindspore.ops.nll_loss(label_smoothing != 0)")
    return core.nll_loss(
        _t(inputs),
        _raw(target),
        _raw(weight) if weight is not None else None,
        ignore_index,
        reduction,
    )


def mse_loss(input: Any, target: Any, reduction: str = "mean") -> Tensor:
    return core.mse_loss(_t(input), target, reduction)


def l1_loss(input: Any, target: Any, reduction: str = "mean") -> Tensor:
    return core.l1_loss(_t(input), target, reduction)


def smooth_l1_loss(
    input: Any, target: Any, beta: float = 1.0, reduction: str = "none"
) -> Tensor:
    return core.smooth_l1_loss(_t(input), target, reduction, beta)


def binary_cross_entropy(
    logits: Any, labels: Any, weight: Any = None, reduction: str = "mean"
) -> Tensor:
    return core.binary_cross_entropy(_t(logits), labels, weight, reduction)


def binary_cross_entropy_with_logits(
    input: Any,
    target: Any,
    weight: Any = None,
    pos_weight: Any = None,
    reduction: str = "mean",
) -> Tensor:
    return core.binary_cross_entropy_with_logits(
        _t(input), target, weight, reduction, pos_weight
    )


# --- gradient utilities --------------------------------------------------------------------------
def clip_by_value(
    x: Any, clip_value_min: Any = None, clip_value_max: Any = None
) -> Any:
    low = None if clip_value_min is None else _raw(clip_value_min)
    high = None if clip_value_max is None else _raw(clip_value_max)
    return _map(lambda t: core.clamp(_t(t), low, high), x)


def clip_by_global_norm(x: Any, clip_norm: float = 1.0, use_norm: Any = None) -> Any:
    """Scale every tensor by ``clip_norm / max(global_norm, clip_norm)``."""
    tensors = [x] if isinstance(x, core.Tensor) else list(x)
    if use_norm is None:
        total = math.sqrt(
            builtins.sum(
                float(np.square(np.asarray(_raw(t), np.float64)).sum()) for t in tensors
            )
        )
    else:
        total = float(_raw(use_norm))
    clip_norm = float(_raw(clip_norm))
    factor = clip_norm / builtins.max(total, clip_norm)
    scaled = [core.mul(_t(t), factor) for t in tensors]
    return scaled[0] if isinstance(x, core.Tensor) else tuple(scaled)


def tensor(value: Any, dtype: Any = None) -> Tensor:
    return as_tensor(value, dtype)
