"""Methods of ``mindspore.Tensor`` (arithmetic, reductions, shape, in place), on ``core`` ops."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from .. import core
from . import _dtype
from ._missing import missing


def _raw(value: Any) -> Any:
    return value._data if isinstance(value, core.Tensor) else value


def _raw_or_none(value: Any) -> Any:
    return None if value is None else _raw(value)


def _axes(axis: Any) -> Any:
    if isinstance(axis, list):
        return tuple(axis)
    if isinstance(axis, tuple) and len(axis) == 0:
        return None
    return axis


def _dim_args(axis: Any, keep: bool, dim: Any, keepdim: Any) -> tuple[Any, bool]:
    """MindSpore's ``axis``/``keep_dims`` or torch's ``dim``/``keepdim`` spelling."""
    axis = axis if dim is None else dim
    return _axes(axis), bool(keep if keepdim is None else keepdim)


def _shape_args(shape: tuple) -> tuple:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)


class TensorMethods:
    """Mixed into ``mindspore.Tensor``; results are plain Tensors (``_out_cls``) even on a Parameter."""

    _out_cls: type

    def _new(self, array: Any) -> Any:
        return core.wrap(self._out_cls, np.asarray(array))

    # --- arithmetic methods --------------------------------------------------------------------
    def add(self, other: Any) -> Any:
        return core.add(self, other)

    def sub(self, other: Any) -> Any:
        return core.sub(self, other)

    def mul(self, other: Any) -> Any:
        return core.mul(self, other)

    def div(self, other: Any) -> Any:
        return core.div(self, other)

    def pow(self, exponent: Any) -> Any:
        return core.pow(self, exponent)

    def matmul(self, other: Any) -> Any:
        return core.matmul(self, other)

    def neg(self) -> Any:
        return core.neg(self)

    def abs(self) -> Any:
        return core.abs(self)

    def exp(self) -> Any:
        return core.exp(self)

    def log(self) -> Any:
        return core.log(self)

    def sqrt(self) -> Any:
        return core.sqrt(self)

    def square(self) -> Any:
        return core.mul(self, self)

    def sin(self) -> Any:
        return core.sin(self)

    def cos(self) -> Any:
        return core.cos(self)

    def tanh(self) -> Any:
        return core.tanh(self)

    def sigmoid(self) -> Any:
        return core.sigmoid(self)

    def relu(self) -> Any:
        return core.relu(self)

    def sign(self) -> Any:
        return core.sign(self)

    def floor(self) -> Any:
        return core.floor(self)

    def ceil(self) -> Any:
        return core.ceil(self)

    def round(self) -> Any:
        return core.round(self)

    def clip(self, xmin: Any = None, xmax: Any = None) -> Any:
        return core.clamp(self, _raw_or_none(xmin), _raw_or_none(xmax))

    def clamp(self, min: Any = None, max: Any = None) -> Any:
        return core.clamp(self, _raw_or_none(min), _raw_or_none(max))

    def maximum(self, other: Any) -> Any:
        return core.maximum(self, other)

    def minimum(self, other: Any) -> Any:
        return core.minimum(self, other)

    def eq(self, other: Any) -> Any:
        return core.eq(self, other)

    def ne(self, other: Any) -> Any:
        return core.ne(self, other)

    def lt(self, other: Any) -> Any:
        return core.lt(self, other)

    def le(self, other: Any) -> Any:
        return core.le(self, other)

    def gt(self, other: Any) -> Any:
        return core.gt(self, other)

    def ge(self, other: Any) -> Any:
        return core.ge(self, other)

    def isnan(self) -> Any:
        return self._new(np.isnan(self._data))

    def isfinite(self) -> Any:
        return self._new(np.isfinite(self._data))

    # --- reductions (MindSpore 2.x also takes torch's ``dim=``/``keepdim=``) ------------------------
    def sum(
        self,
        axis: Any = None,
        dtype: Any = None,
        keepdims: bool = False,
        initial: Any = None,
        *,
        dim: Any = None,
        keepdim: Any = None,
    ) -> Any:
        axis, keepdims = _dim_args(axis, keepdims, dim, keepdim)
        out = core.sum(self, axis, keepdims)
        if self._data.dtype.kind in "biu" and out._data.dtype != np.int64:
            out = core.cast(out, np.int64)
        return out if dtype is None else out.astype(dtype)

    def mean(
        self,
        axis: Any = None,
        keep_dims: bool = False,
        *,
        dim: Any = None,
        keepdim: Any = None,
    ) -> Any:
        axis, keep_dims = _dim_args(axis, keep_dims, dim, keepdim)
        out = core.mean(self, axis, keep_dims)
        if self._data.dtype.kind in "iu":
            out = core.cast(out, self._data.dtype)
        return out

    def prod(
        self,
        axis: Any = None,
        keep_dims: bool = False,
        dtype: Any = None,
        *,
        dim: Any = None,
        keepdim: Any = None,
    ) -> Any:
        axis, keep_dims = _dim_args(axis, keep_dims, dim, keepdim)
        return self._new(np.prod(self._data, axis=axis, keepdims=keep_dims))

    def max(self, *args: Any, **kwargs: Any) -> Any:
        """``max(axis=...)`` gives values; ``max(dim)`` / ``max(dim=...)`` values and indices."""
        return self._extreme(core.max, np.argmax, args, kwargs)

    def min(self, *args: Any, **kwargs: Any) -> Any:
        return self._extreme(core.min, np.argmin, args, kwargs)

    def _extreme(self, reduce: Any, arg: Any, args: tuple, kwargs: dict) -> Any:
        if (args or "dim" in kwargs) and "axis" not in kwargs:
            dim = args[0] if args else kwargs["dim"]
            keepdim = (
                bool(args[1])
                if len(args) > 1
                else bool(kwargs.get("keepdim", kwargs.get("keepdims", False)))
            )
            index = arg(self._data, axis=dim)
            if keepdim:
                index = np.expand_dims(index, dim)
            return reduce(self, dim, keepdim), self._new(np.asarray(index, np.int64))
        axis = kwargs.get("axis")
        keepdims = kwargs.get("keepdims", kwargs.get("keep_dims", False))
        return reduce(self, _axes(axis), keepdims)

    def argmax(
        self,
        axis: Any = None,
        keepdims: bool = False,
        *,
        dim: Any = None,
        keepdim: Any = None,
    ) -> Any:
        axis, keepdims = _dim_args(axis, keepdims, dim, keepdim)
        return core.argmax(self, axis, keepdims)

    def argmin(
        self,
        axis: Any = None,
        keepdims: bool = False,
        *,
        dim: Any = None,
        keepdim: Any = None,
    ) -> Any:
        axis, keepdims = _dim_args(axis, keepdims, dim, keepdim)
        return core.argmin(self, axis, keepdims)

    def var(
        self,
        axis: Any = None,
        ddof: int = 0,
        keepdims: bool = False,
        *,
        dim: Any = None,
        keepdim: Any = None,
    ) -> Any:
        axis, keepdims = _dim_args(axis, keepdims, dim, keepdim)
        return core.var(self, axis, ddof, keepdims)

    def std(
        self,
        axis: Any = None,
        ddof: int = 0,
        keepdims: bool = False,
        *,
        dim: Any = None,
        keepdim: Any = None,
    ) -> Any:
        axis, keepdims = _dim_args(axis, keepdims, dim, keepdim)
        return core.sqrt(core.var(self, axis, ddof, keepdims))

    def norm(self, ord: Any = None, dim: Any = None, keepdim: bool = False) -> Any:
        if ord not in (None, 2, "fro"):
            raise missing(f"mindspore.Tensor.norm(ord={ord!r})")
        return core.sqrt(core.sum(core.mul(self, self), _axes(dim), keepdim))

    def all(
        self,
        axis: Any = None,
        keep_dims: bool = False,
        *,
        dim: Any = None,
        keepdim: Any = None,
    ) -> Any:
        axis, keep_dims = _dim_args(axis, keep_dims, dim, keepdim)
        return self._new(np.all(self._data, axis=axis, keepdims=keep_dims))

    def any(
        self,
        axis: Any = None,
        keep_dims: bool = False,
        *,
        dim: Any = None,
        keepdim: Any = None,
    ) -> Any:
        axis, keep_dims = _dim_args(axis, keep_dims, dim, keepdim)
        return self._new(np.any(self._data, axis=axis, keepdims=keep_dims))

    def cumsum(self, axis: Any = None, dtype: Any = None, *, dim: Any = None) -> Any:
        return self._new(np.cumsum(self._data, axis=axis if dim is None else dim))

    # --- shape ----------------------------------------------------------------------------------
    def reshape(self, *shape: Any) -> Any:
        return core.reshape(self, _shape_args(shape))

    view = reshape

    def flatten(
        self, order: str = "C", *, start_dim: int = 0, end_dim: int = -1
    ) -> Any:
        return core.flatten(self, start_dim, end_dim)

    def ravel(self) -> Any:
        return core.reshape(self, (-1,))

    def transpose(self, *axes: Any) -> Any:
        """A permutation, or (two ints, as MindSpore 2.x also accepts) torch's swap of two dims."""
        if len(axes) == 2 and all(isinstance(a, int) for a in axes):
            return core.swapaxes(self, axes[0], axes[1])
        axes = _shape_args(axes)
        return core.transpose(self, axes or None)

    def permute(self, *axes: Any) -> Any:
        return core.transpose(self, _shape_args(axes))

    def swapaxes(self, axis0: int, axis1: int) -> Any:
        return core.swapaxes(self, axis0, axis1)

    def squeeze(self, axis: Any = None) -> Any:
        return core.squeeze(self, _axes(axis))

    def unsqueeze(self, dim: int) -> Any:
        return core.unsqueeze(self, dim)

    def expand_dims(self, axis: int) -> Any:
        return core.unsqueeze(self, axis)

    def broadcast_to(self, shape: Any) -> Any:
        return core.broadcast_to(self, tuple(shape))

    def expand_as(self, other: Any) -> Any:
        return core.broadcast_to(self, tuple(other.shape))

    def tile(self, reps: Any) -> Any:
        reps = tuple(reps)
        out = self
        if len(reps) > self.ndim:
            out = core.reshape(out, (1,) * (len(reps) - self.ndim) + self.shape)
        reps = (1,) * (out.ndim - len(reps)) + reps
        big = tuple(
            itertools.chain.from_iterable((r, s) for r, s in zip(reps, out.shape))
        )
        inter = core.reshape(
            out, tuple(itertools.chain.from_iterable((1, s) for s in out.shape))
        )
        return core.reshape(
            core.broadcast_to(inter, big), tuple(r * s for r, s in zip(reps, out.shape))
        )

    def split(
        self, split_size_or_sections: Any, axis: int = 0, *, dim: Any = None
    ) -> tuple:
        return tuple(
            core.split(self, split_size_or_sections, axis if dim is None else dim)
        )

    def chunk(self, chunks: int, axis: int = 0, *, dim: Any = None) -> tuple:
        return tuple(core.chunk(self, chunks, axis if dim is None else dim))

    def expand(self, *size: Any) -> Any:
        size = _shape_args(size)
        shape = tuple(
            self.shape[i - len(size) + self.ndim] if s == -1 else s
            for i, s in enumerate(size)
        )
        return core.broadcast_to(self, shape)

    def copy(self) -> Any:
        return core.copy(self)

    def clone(self) -> Any:
        return core.copy(self)

    def softmax(self, axis: int = -1) -> Any:
        return core.softmax(self, axis)

    def masked_fill(self, mask: Any, value: Any) -> Any:
        return core.where(_raw(mask), _raw(value), self)

    def fill(self, value: Any) -> Any:
        return self._new(np.full_like(self._data, value))

    def assign_value(self, value: Any) -> Any:
        self._data = np.array(_raw(value), self._data.dtype)
        return self

    def zero_(self) -> Any:
        self._data[...] = 0
        return self

    # --- in place (on the array; MindSpore records nothing outside grad) ---------------------------
    def copy_(self, src: Any, non_blocking: bool = False) -> Any:
        self._data[...] = _raw(src)
        return self

    def fill_(self, value: Any) -> Any:
        self._data[...] = _raw(value)
        return self

    def add_(self, other: Any, *, alpha: Any = 1) -> Any:
        self._data[...] = self._data + np.asarray(_raw(other)) * alpha
        return self

    def sub_(self, other: Any, *, alpha: Any = 1) -> Any:
        self._data[...] = self._data - np.asarray(_raw(other)) * alpha
        return self

    def mul_(self, other: Any) -> Any:
        self._data[...] = self._data * _raw(other)
        return self

    def div_(self, other: Any) -> Any:
        self._data[...] = self._data / _raw(other)
        return self

    def clamp_(self, min: Any = None, max: Any = None) -> Any:
        self._data[...] = np.clip(self._data, _raw_or_none(min), _raw_or_none(max))
        return self

    def exp_(self) -> Any:
        self._data[...] = np.exp(self._data)
        return self

    def masked_fill_(self, mask: Any, value: Any) -> Any:
        self._data[np.asarray(_raw(mask), bool)] = _raw(value)
        return self

    def uniform_(
        self, from_: float = 0.0, to: float = 1.0, *, generator: Any = None
    ) -> Any:
        self._data[...] = core.rng_uniform(self.shape, from_, to, self._data.dtype)
        return self

    def normal_(
        self, mean: float = 0.0, std: float = 1.0, *, generator: Any = None
    ) -> Any:
        self._data[...] = core.rng_normal(self.shape, mean, std, self._data.dtype)
        return self

    def requires_grad_(self, requires_grad: bool = True) -> Any:
        return self

    # --- more torch-style methods MindSpore 2.x tensors have -------------------------------------
    def new_zeros(self, size: Any, dtype: Any = None) -> Any:
        return self._new(
            np.zeros(
                tuple(size) if not isinstance(size, int) else (size,), self._np(dtype)
            )
        )

    def new_ones(self, size: Any, dtype: Any = None) -> Any:
        return self._new(
            np.ones(
                tuple(size) if not isinstance(size, int) else (size,), self._np(dtype)
            )
        )

    def _np(self, dtype: Any) -> np.dtype:
        return self._data.dtype if dtype is None else _dtype.to_numpy(dtype)

    def view_as(self, other: Any) -> Any:
        return core.reshape(self, tuple(other.shape))

    reshape_as = view_as

    def t(self) -> Any:
        return core.transpose(self, None)

    def mm(self, other: Any) -> Any:
        return core.matmul(self, other)

    bmm = mm

    def dot(self, other: Any) -> Any:
        return core.sum(core.mul(self, other))

    def outer(self, other: Any) -> Any:
        return core.mul(core.unsqueeze(self, -1), other)

    def reciprocal(self) -> Any:
        return core.div(1.0, self)

    def rsqrt(self) -> Any:
        return core.div(1.0, core.sqrt(self))

    def erf(self) -> Any:
        return core.erf(self)

    def amax(self, axis: Any = None, keepdims: bool = False) -> Any:
        return core.max(self, _axes(axis), keepdims)

    def amin(self, axis: Any = None, keepdims: bool = False) -> Any:
        return core.min(self, _axes(axis), keepdims)

    def logsumexp(
        self,
        axis: Any = None,
        keepdims: bool = False,
        *,
        dim: Any = None,
        keepdim: Any = None,
    ) -> Any:
        axis, keepdims = _dim_args(axis, keepdims, dim, keepdim)
        return core.logsumexp(self, axis, keepdims)

    def index_select(self, axis: int, index: Any) -> Any:
        axis = axis % self.ndim
        return core.getitem(self, (slice(None),) * axis + (np.asarray(_raw(index)),))

    def gather(self, *args: Any, **kwargs: Any) -> Any:
        """``gather(input_indices, axis)`` takes along ``axis`` (``ops.gather``); torch's
        ``gather(dim, index)``, which MindSpore 2.x also accepts, picks elements."""
        if "dim" in kwargs or "index" in kwargs or (args and isinstance(args[0], int)):
            dim = kwargs.get("dim", args[0] if args else None)
            index = kwargs.get("index", args[1] if len(args) > 1 else None)
            return core.gather(self, dim, np.asarray(_raw(index)))
        params = dict(zip(("input_indices", "axis", "batch_dims"), args))
        params.update(kwargs)
        if params.get("batch_dims"):
            raise missing("mindspore.Tensor.gather(batch_dims != 0)")
        axis = params["axis"] % self.ndim
        index = np.asarray(_raw(params["input_indices"]))
        return core.getitem(self, (slice(None),) * axis + (index,))

    def gather_elements(self, dim: int, index: Any) -> Any:
        return core.gather(self, dim, np.asarray(_raw(index)))

    def argsort(self, axis: int = -1, descending: bool = False) -> Any:
        data = -self._data if descending else self._data
        return self._new(np.argsort(data, axis=axis, kind="stable").astype(np.int64))

    def flip(self, dims: Any) -> Any:
        dims = (dims,) if isinstance(dims, int) else tuple(dims)
        index = tuple(
            slice(None, None, -1) if i in [d % self.ndim for d in dims] else slice(None)
            for i in range(self.ndim)
        )
        return core.getitem(self, index)

    def tril(self, diagonal: int = 0) -> Any:
        return core.mul(
            self, np.tril(np.ones(self.shape[-2:], self._data.dtype), diagonal)
        )

    def triu(self, diagonal: int = 0) -> Any:
        return core.mul(
            self, np.triu(np.ones(self.shape[-2:], self._data.dtype), diagonal)
        )

    def isclose(
        self,
        other: Any,
        rtol: float = 1e-5,
        atol: float = 1e-8,
        equal_nan: bool = False,
    ) -> Any:
        return self._new(np.isclose(self._data, _raw(other), rtol, atol, equal_nan))

    def allclose(
        self,
        other: Any,
        rtol: float = 1e-5,
        atol: float = 1e-8,
        equal_nan: bool = False,
    ) -> bool:
        return bool(np.allclose(self._data, _raw(other), rtol, atol, equal_nan))

    def nelement(self) -> int:
        return self._data.size

    def init_data(self, *args: Any, **kwargs: Any) -> Any:
        return self

    def is_contiguous(self) -> bool:
        return True

    def contiguous(self) -> Any:
        return self
