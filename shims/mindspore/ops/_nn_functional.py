"""``mindspore.ops`` creation, random, neural-network, loss and gradient-utility functions."""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from ... import core
from .. import _dtype
from .._missing import missing
from .._tensor import Tensor, as_tensor, wrap
from ._functional import _map, _np_dtype, _raw, _size, _t, cast


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
