"""torch's tensor operations (functions and Tensor methods share these definitions)."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from .. import core as C
from . import _dtypes as D
from ._tensor import LEAF_INPLACE, Tensor, _raw, _shape_args, named, return_type, wrap

ndarray = np.ndarray
_bsum = builtins.sum


def _t(x: Any) -> Any:
    """Tensors stay; lists and arrays become tensors (scalars stay scalars for the engine's promotion)."""
    if isinstance(x, (list, tuple, ndarray)):
        from ._tensor import to_array

        return wrap(to_array(x))
    return x


def _dims(dim: Any) -> Any:
    if isinstance(dim, list):
        return tuple(dim)
    return dim


# ------------------------------------------------------------------ arithmetic
def add(input: Any, other: Any, *, alpha: Any = 1, out: Any = None) -> Tensor:
    if alpha != 1:
        other = named(C.mul(_t(other), alpha), "MulBackward0")
    return C.add(_t(input), _t(other))


def sub(input: Any, other: Any, *, alpha: Any = 1, out: Any = None) -> Tensor:
    if alpha != 1:
        other = named(C.mul(_t(other), alpha), "MulBackward0")
    return C.sub(_t(input), _t(other))


def rsub(input: Any, other: Any, alpha: Any = 1) -> Tensor:
    return named(C.sub(other, input), "RsubBackward1")


def mul(input: Any, other: Any, *, out: Any = None) -> Tensor:
    return C.mul(_t(input), _t(other))


def div(
    input: Any, other: Any, *, rounding_mode: str | None = None, out: Any = None
) -> Tensor:
    if rounding_mode is None:
        return C.div(_t(input), _t(other))
    raw = np.divide(_raw(input), _raw(other))
    raw = np.floor(raw) if rounding_mode == "floor" else np.trunc(raw)
    dtype = np.result_type(_raw(input), _raw(other))
    return wrap(
        raw.astype(
            dtype if dtype.kind != "f" or dtype == np.float64 else D.DEFAULT[0].np
        )
    )


def true_divide(input: Any, other: Any) -> Tensor:
    return C.div(_t(input), _t(other))


def rdiv(input: Any, other: Any) -> Tensor:
    return named(C.div(other, input), "MulBackward0")


def pow(input: Any, exponent: Any) -> Tensor:
    return C.pow(_t(input), _t(exponent))


def floor_divide(input: Any, other: Any) -> Tensor:
    return wrap(np.asarray(np.floor_divide(_raw(input), _raw(other))))


def remainder(input: Any, other: Any) -> Tensor:
    return wrap(np.asarray(np.mod(_raw(input), _raw(other))))


def matmul(input: Any, other: Any) -> Tensor:
    return C.matmul(input, other)


def mm(input: Tensor, mat2: Tensor) -> Tensor:
    if input.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError("self must be a matrix")
    return C.matmul(input, mat2)


def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    if input.ndim != 3 or mat2.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    return named(C.matmul(input, mat2), "BmmBackward0")


def dot(input: Tensor, other: Tensor) -> Tensor:
    return C.matmul(input, other)


def mv(input: Tensor, vec: Tensor) -> Tensor:
    return C.matmul(input, vec)


def outer(input: Tensor, vec2: Tensor) -> Tensor:
    return C.mul(C.unsqueeze(input, -1), vec2)


def neg(input: Tensor) -> Tensor:
    return C.neg(input)


def square(input: Tensor) -> Tensor:
    return named(C.pow(input, 2), "PowBackward0")


def rsqrt(input: Tensor) -> Tensor:
    return named(C.div(1.0, C.sqrt(input)), "RsqrtBackward0")


def reciprocal(input: Tensor) -> Tensor:
    return named(C.div(1.0, input), "ReciprocalBackward0")


def clamp(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        out = input
        if min is not None:
            out = C.maximum(out, min)
        if max is not None:
            out = C.minimum(out, max)
        return named(out, "ClampBackward0")
    return C.clamp(input, min, max)


def where(condition: Any, input: Any = None, other: Any = None) -> Any:
    if input is None and other is None:
        return tuple(wrap(i.astype(np.int64)) for i in np.nonzero(_raw(condition)))
    return C.where(_raw(condition), _t(input), _t(other))


def maximum(input: Tensor, other: Tensor) -> Tensor:
    return C.maximum(input, other)


def minimum(input: Tensor, other: Tensor) -> Tensor:
    return C.minimum(input, other)


def lerp(input: Tensor, end: Tensor, weight: Any) -> Tensor:
    return C.add(input, C.mul(C.sub(end, input), weight))


def addmm(
    input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1
) -> Tensor:
    prod = C.matmul(mat1, mat2)
    if alpha != 1:
        prod = C.mul(prod, alpha)
    base = input if beta == 1 else C.mul(input, beta)
    return named(C.add(base, prod), "AddmmBackward0")


# ------------------------------------------------------------------ reductions
def sum(
    input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None
) -> Tensor:
    x = input
    if dtype is not None:
        x = C.cast(x, D.to_numpy_dtype(dtype))
    elif x._data.dtype.kind in "bu" or x._data.dtype in (np.int8, np.int16, np.int32):
        x = C.cast(x, np.int64)
    return C.sum(x, _dims(dim), keepdim)


def mean(
    input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None
) -> Tensor:
    if input._data.dtype.kind not in "fc" and dtype is None:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or complex "
            f"dtype. Got: {input.dtype.name.capitalize()}"
        )
    x = input if dtype is None else C.cast(input, D.to_numpy_dtype(dtype))
    return C.mean(x, _dims(dim), keepdim)


def _extreme(input: Tensor, dim: Any, keepdim: bool, which: str) -> Any:
    if isinstance(dim, Tensor):
        return C.maximum(input, dim) if which == "max" else C.minimum(input, dim)
    if dim is None:
        return (C.max if which == "max" else C.min)(input)
    arr = input._data
    idx = np.argmax(arr, axis=dim) if which == "max" else np.argmin(arr, axis=dim)
    idx_keep = np.expand_dims(idx, dim)
    values = C.gather(input, dim, idx_keep)
    if not keepdim:
        values = C.squeeze(values, dim)
    name = "MaxBackward0" if which == "max" else "MinBackward0"
    indices = idx_keep if keepdim else idx
    return return_type(which)(named(values, name), wrap(indices.astype(np.int64)))


def max(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    return _extreme(input, dim, keepdim, "max")


def min(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    return _extreme(input, dim, keepdim, "min")


def amax(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    return named(
        C.max(input, None if dim == () else _dims(dim), keepdim), "AmaxBackward0"
    )


def amin(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    return named(
        C.min(input, None if dim == () else _dims(dim), keepdim), "AminBackward0"
    )


def argmax(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    return C.argmax(input, dim, keepdim)


def argmin(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    return C.argmin(input, dim, keepdim)


def _correction(unbiased: Any, correction: Any) -> int:
    if correction is not None:
        return int(correction)
    return 1 if unbiased in (None, True) else 0


def var(
    input: Tensor,
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> Tensor:
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    return named(
        C.var(input, _dims(dim), _correction(unbiased, correction), keepdim),
        "VarBackward0",
    )


def std(
    input: Tensor,
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> Tensor:
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    v = C.var(input, _dims(dim), _correction(unbiased, correction), keepdim)
    return named(C.sqrt(v), "StdBackward0")


def norm(
    input: Tensor,
    p: Any = "fro",
    dim: Any = None,
    keepdim: bool = False,
    dtype: Any = None,
) -> Tensor:
    if p in ("fro", 2, 2.0, None):
        out = C.sqrt(C.sum(C.mul(input, input), _dims(dim), keepdim))
    elif p in (1, 1.0):
        out = C.sum(C.abs(input), _dims(dim), keepdim)
    elif p in (float("inf"), "inf"):
        out = C.max(C.abs(input), _dims(dim), keepdim)
    else:
        out = C.pow(
            C.sum(C.pow(C.abs(input), float(p)), _dims(dim), keepdim), 1.0 / float(p)
        )
    return named(out, "LinalgVectorNormBackward0")


def logsumexp(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    return named(C.logsumexp(input, _dims(dim), keepdim), "LogsumexpBackward0")


def prod(
    input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None
) -> Tensor:
    if input.requires_grad:
        raise NotImplementedError(
            "shims: torch.prod with requires_grad is not implemented"
        )
    return wrap(np.asarray(input._data.prod(axis=dim, keepdims=keepdim)))


def cumsum(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    if input.requires_grad:
        raise NotImplementedError(
            "shims: torch.cumsum with requires_grad is not implemented"
        )
    return wrap(np.cumsum(input._data, axis=dim))


def all(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    return wrap(np.asarray(np.all(input._data, axis=dim, keepdims=keepdim)))


def any(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    return wrap(np.asarray(np.any(input._data, axis=dim, keepdims=keepdim)))


def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:
    return wrap(np.asarray(np.count_nonzero(input._data, axis=dim), np.int64))


def sort(
    input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False
) -> Any:
    arr = input._data
    idx = np.argsort(-arr if descending else arr, axis=dim, kind="stable")
    values = C.gather(input, dim, idx)
    return return_type("sort")(
        named(values, "SortBackward0"), wrap(idx.astype(np.int64))
    )


def argsort(
    input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False
) -> Tensor:
    return sort(input, dim, descending).indices


def topk(
    input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True
) -> Any:
    arr = input._data
    idx = np.argsort(-arr if largest else arr, axis=dim, kind="stable")
    idx = np.take(idx, np.arange(k), axis=dim)
    values = C.gather(input, dim, idx)
    return return_type("topk")(
        named(values, "TopkBackward0"), wrap(idx.astype(np.int64))
    )


# ------------------------------------------------------------------ shapes
def reshape(input: Tensor, *shape: Any) -> Tensor:
    return C.reshape(input, _shape_args(shape))


def view(input: Tensor, *shape: Any) -> Tensor:
    if len(shape) == 1 and isinstance(shape[0], D.dtype):
        return wrap(input._data.view(D.to_numpy_dtype(shape[0])))
    return C.reshape(input, _shape_args(shape))


def view_as(input: Tensor, other: Tensor) -> Tensor:
    return C.reshape(input, other.shape)


def permute(input: Tensor, *dims: Any) -> Tensor:
    return C.transpose(input, _shape_args(dims))


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    axes = list(range(input.ndim))
    axes[dim0], axes[dim1] = axes[dim1], axes[dim0]
    return named(C.transpose(input, axes), "TransposeBackward0")


swapaxes = transpose


def t(input: Tensor) -> Tensor:
    if input.ndim < 2:
        return input
    return named(C.transpose(input, (1, 0)), "TBackward0")


def squeeze(input: Tensor, dim: Any = None) -> Tensor:
    return C.squeeze(input, _dims(dim))


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    return C.unsqueeze(input, dim)


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    return C.flatten(input, start_dim, end_dim)


def unflatten(input: Tensor, dim: int, sizes: Any) -> Tensor:
    shape = list(input.shape)
    dim = dim % len(shape)
    return C.reshape(input, tuple(shape[:dim]) + tuple(sizes) + tuple(shape[dim + 1 :]))


def expand(input: Tensor, *sizes: Any) -> Tensor:
    sizes = _shape_args(sizes)
    lead = len(sizes) - input.ndim
    shape = tuple(s if s != -1 else input.shape[i - lead] for i, s in enumerate(sizes))
    return named(C.broadcast_to(input, shape), "ExpandBackward0")


def expand_as(input: Tensor, other: Tensor) -> Tensor:
    return expand(input, *other.shape)


def broadcast_to(input: Tensor, size: Any) -> Tensor:
    return expand(input, *size)


def repeat(input: Tensor, *sizes: Any) -> Tensor:
    sizes = _shape_args(sizes)
    shape = (1,) * (len(sizes) - input.ndim) + tuple(input.shape)
    x = C.reshape(input, tuple(v for n in shape for v in (1, n)))
    x = C.broadcast_to(x, tuple(v for r, n in zip(sizes, shape) for v in (r, n)))
    return named(
        C.reshape(x, tuple(r * n for r, n in zip(sizes, shape))), "RepeatBackward0"
    )


def cat(tensors: Any, dim: int = 0, *, out: Any = None) -> Tensor:
    tensors = [x for x in tensors if not (x.ndim == 1 and x.shape[0] == 0)] or list(
        tensors
    )
    return C.concat([_t(x) for x in tensors], dim)


concat = concatenate = cat


def stack(tensors: Any, dim: int = 0, *, out: Any = None) -> Tensor:
    return C.stack([_t(x) for x in tensors], dim)


def _named_all(parts: list, name: str) -> tuple:
    return tuple(named(p, name) for p in parts)


def split(tensor: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple:
    name = (
        "SplitBackward0"
        if isinstance(split_size_or_sections, int)
        else "SplitWithSizesBackward0"
    )
    return _named_all(C.split(tensor, split_size_or_sections, dim), name)


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    return _named_all(C.chunk(input, chunks, dim), "SplitBackward0")


def unbind(input: Tensor, dim: int = 0) -> tuple:
    ax = dim % input.ndim
    return tuple(
        named(C.getitem(input, (slice(None),) * ax + (i,)), "UnbindBackward0")
        for i in range(input.shape[dim])
    )


def narrow(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    ax = dim % input.ndim
    return C.getitem(input, (slice(None),) * ax + (slice(start, start + length),))


def select(input: Tensor, dim: int, index: int) -> Tensor:
    ax = dim % input.ndim
    return C.getitem(input, (slice(None),) * ax + (index,))


def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:
    ax = dim % input.ndim
    return named(
        C.getitem(input, (slice(None),) * ax + (np.asarray(_raw(index)),)),
        "IndexSelectBackward0",
    )


def gather(
    input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False
) -> Tensor:
    return C.gather(input, dim, _raw(index))


def masked_fill(input: Tensor, mask: Any, value: Any) -> Tensor:
    mask = np.asarray(_raw(mask), bool)
    if isinstance(value, Tensor):
        return named(
            C.where(
                mask, C.broadcast_to(value, input.shape) if value.ndim else value, input
            ),
            "MaskedFillBackward0",
        )
    return named(C.where(mask, value, input), "MaskedFillBackward0")


def flip(input: Tensor, dims: Any) -> Tensor:
    index = [slice(None)] * input.ndim
    for d in dims if isinstance(dims, (list, tuple)) else (dims,):
        index[d] = slice(None, None, -1)
    return named(C.getitem(input, tuple(index)), "FlipBackward0")


def roll(input: Tensor, shifts: Any, dims: Any = None) -> Tensor:
    if dims is None:
        flat = C.reshape(input, (-1,))
        n = flat.shape[0]
        idx = (np.arange(n) - shifts) % n
        return C.reshape(C.getitem(flat, idx), input.shape)
    shifts = shifts if isinstance(shifts, (list, tuple)) else (shifts,)
    dims = dims if isinstance(dims, (list, tuple)) else (dims,)
    out = input
    for s, d in zip(shifts, dims):
        n = input.shape[d]
        index = [slice(None)] * input.ndim
        index[d] = (np.arange(n) - s) % n
        out = C.getitem(out, tuple(index))
    return named(out, "RollBackward0")


def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    mask = np.tril(np.ones(input.shape[-2:], bool), diagonal)
    return named(C.mul(input, mask), "TrilBackward0")


def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    mask = np.triu(np.ones(input.shape[-2:], bool), diagonal)
    return named(C.mul(input, mask), "TriuBackward0")


# ------------------------------------------------------------------ elementwise math
def _unary_op(fn):
    def op(input: Tensor, *, out: Any = None) -> Tensor:
        return fn(_t(input))

    op.__name__ = fn.__name__
    return op


exp = _unary_op(C.exp)
log = _unary_op(C.log)
log1p = _unary_op(C.log1p)
sqrt = _unary_op(C.sqrt)
sin = _unary_op(C.sin)
cos = _unary_op(C.cos)
tanh = _unary_op(C.tanh)
sigmoid = _unary_op(C.sigmoid)
relu = _unary_op(C.relu)
abs = _unary_op(C.abs)
sign = _unary_op(C.sign)
floor = _unary_op(C.floor)
ceil = _unary_op(C.ceil)
erf = _unary_op(C.erf)


def round(input: Tensor, *, decimals: int = 0) -> Tensor:
    if decimals:
        scale = 10.0**decimals
        return named(C.div(C.round(C.mul(input, scale)), scale), "RoundBackward1")
    return C.round(input)


def log2(input: Tensor) -> Tensor:
    return named(C.div(C.log(input), float(np.log(2.0))), "Log2Backward0")


def log10(input: Tensor) -> Tensor:
    return named(C.div(C.log(input), float(np.log(10.0))), "Log10Backward0")


def exp2(input: Tensor) -> Tensor:
    return named(C.pow(2.0, input), "Exp2Backward0")


def expm1(input: Tensor) -> Tensor:
    return named(C.sub(C.exp(input), 1.0), "Expm1Backward0")


def tan(input: Tensor) -> Tensor:
    return named(C.div(C.sin(input), C.cos(input)), "TanBackward0")


def softmax(input: Tensor, dim: int, dtype: Any = None) -> Tensor:
    x = input if dtype is None else C.cast(input, D.to_numpy_dtype(dtype))
    return C.softmax(x, dim)


def log_softmax(input: Tensor, dim: int, dtype: Any = None) -> Tensor:
    x = input if dtype is None else C.cast(input, D.to_numpy_dtype(dtype))
    return C.log_softmax(x, dim)


# ------------------------------------------------------------------ comparisons
eq = C.eq
ne = C.ne
lt = C.lt
le = C.le
gt = C.gt
ge = C.ge
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne


def logical_not(input: Tensor) -> Tensor:
    return C.logical_not(input)


def logical_and(input: Tensor, other: Tensor) -> Tensor:
    return C.logical_and(input, other)


def logical_or(input: Tensor, other: Tensor) -> Tensor:
    return C.logical_or(input, other)


def isnan(input: Tensor) -> Tensor:
    return wrap(np.isnan(input._data))


def isinf(input: Tensor) -> Tensor:
    return wrap(np.isinf(input._data))


def isfinite(input: Tensor) -> Tensor:
    return wrap(np.isfinite(input._data))


def equal(input: Tensor, other: Tensor) -> bool:
    return input.shape == other.shape and bool(np.array_equal(input._data, other._data))


def allclose(
    input: Tensor,
    other: Tensor,
    rtol: float = 1e-05,
    atol: float = 1e-08,
    equal_nan: bool = False,
) -> bool:
    return bool(
        np.allclose(input._data, _raw(other), rtol=rtol, atol=atol, equal_nan=equal_nan)
    )


def isclose(
    input: Tensor,
    other: Any,
    rtol: float = 1e-05,
    atol: float = 1e-08,
    equal_nan: bool = False,
) -> Tensor:
    return wrap(
        np.isclose(input._data, _raw(other), rtol=rtol, atol=atol, equal_nan=equal_nan)
    )


def nonzero(input: Tensor, *, as_tuple: bool = False) -> Any:
    idx = np.nonzero(input._data)
    if as_tuple:
        return tuple(wrap(i.astype(np.int64)) for i in idx)
    return wrap(np.stack(idx, axis=1).astype(np.int64))


# ------------------------------------------------------------------ in-place
def _inplace(self: Tensor, fn: Any, *args: Any) -> Tensor:
    tracked = C.is_grad_enabled() and (
        self.requires_grad
        or builtins.any(isinstance(a, C.Tensor) and a.requires_grad for a in args)
    )
    if tracked:
        if self._ctx is None and self.requires_grad:
            raise RuntimeError(LEAF_INPLACE)
        before = wrap(self._data, self.requires_grad)
        before._ctx = self._ctx
        out = fn(before, *args)
        self._data = out._data.astype(self._data.dtype, copy=False)
        self._ctx = out._ctx
        self.requires_grad = out.requires_grad
        return self
    with C.grad_mode(False):
        out = fn(wrap(self._data), *args)
    result = out._data
    if result.shape != self._data.shape:
        raise RuntimeError(
            f"output with shape {list(self._data.shape)} doesn't match the broadcast shape {list(result.shape)}"
        )
    self._data[...] = result
    return self


def setitem(self: Tensor, index: Any, value: Any) -> None:
    if isinstance(index, Tensor):
        index = index._data
    elif isinstance(index, tuple):
        index = tuple(i._data if isinstance(i, Tensor) else i for i in index)
    tracked = C.is_grad_enabled() and (
        self.requires_grad or (isinstance(value, C.Tensor) and value.requires_grad)
    )
    if not tracked:
        self._data[index] = _raw(value)
        return
    if self._ctx is None and self.requires_grad:
        raise RuntimeError(LEAF_INPLACE)
    before = wrap(self._data, self.requires_grad)
    before._ctx = self._ctx
    keep = np.ones(self._data.shape, self._data.dtype)
    keep[index] = 0
    target_shape = self._data[index].shape
    v = (
        value
        if isinstance(value, C.Tensor)
        else wrap(np.asarray(value, self._data.dtype))
    )
    v = C.broadcast_to(v, target_shape) if tuple(v.shape) != target_shape else v
    out = C.add(C.mul(before, keep), C.index_add(v, self._data.shape, index))
    self._data = out._data
    self._ctx = out._ctx
    self.requires_grad = out.requires_grad
    named(self, "CopySlices")


_PRIVATE = {
    "setitem",
    "rdiv",
    "wrap",
    "named",
    "Tensor",
    "return_type",
    "LEAF_INPLACE",
    "Any",
    "ndarray",
}
__all__ = [
    n
    for n, v in list(globals().items())
    if callable(v)
    and not n.startswith("_")
    and n not in _PRIVATE
    and not isinstance(v, type)
    and getattr(v, "__module__", "").startswith(("torch2ms.shims", __name__))
]
