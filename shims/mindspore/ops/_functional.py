"""``mindspore.ops`` functions on the shared engine (MindSpore argument names and defaults)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import core
from .. import _dtype
from .._grad import stop_gradient  # noqa: F401
from .._missing import missing
from .._tensor import Tensor, wrap


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


from ._nn_functional import *
from ._nn_functional import any_float  # noqa: F401
