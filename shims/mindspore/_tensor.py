"""``mindspore.Tensor``, ``Parameter`` and ``ParameterTuple`` on the shared engine."""

from __future__ import annotations

import itertools
import numbers
from typing import Any

import numpy as np

from .. import core
from . import _dtype, _printing
from ._missing import missing


def _array_from(data: Any, dtype: Any = None) -> np.ndarray:
    """MindSpore's conversion: Python floats become float32, ints int64, NumPy data keeps its dtype."""
    if isinstance(data, core.Tensor):
        array = np.array(data._data)
    elif isinstance(data, (np.ndarray, np.generic)):
        array = np.array(data)
    else:
        array = np.array(_plain(data))
        if array.dtype == np.float64:
            array = array.astype(np.float32)
        elif array.dtype.kind in "iu":
            array = array.astype(np.int64)
    if dtype is not None:
        array = array.astype(_dtype.to_numpy(dtype), copy=False)
    return array


def _plain(data: Any) -> Any:
    """Nested lists/tuples may hold scalar Tensors."""
    if isinstance(data, (list, tuple)):
        return [_plain(d) for d in data]
    if isinstance(data, core.Tensor):
        return data._data
    return data


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


class Tensor(core.Tensor):
    """A MindSpore tensor over an ndarray. Operators and methods run through ``core``."""

    def __init__(
        self,
        input_data: Any = None,
        dtype: Any = None,
        shape: Any = None,
        init: Any = None,
        const_arg: bool = False,
        device: Any = None,
    ) -> None:
        if input_data is None:
            if shape is None:
                raise ValueError(
                    "For 'Tensor', 'input_data' and 'shape' can not both be None."
                )
            from .common.initializer import initializer

            shape = (shape,) if isinstance(shape, int) else tuple(shape)
            filler = init if init is not None else "zeros"
            array = initializer(filler, shape, dtype or _dtype.float32)._data
        else:
            array = _array_from(input_data, dtype)
        self._data = array
        self.requires_grad = False
        self._ctx = None

    # --- text -----------------------------------------------------------------------------------
    def __repr__(self) -> str:
        return _printing.tensor_repr(self._data, self.dtype.name)

    def __str__(self) -> str:
        return _printing.tensor_str(self._data)

    def __format__(self, spec: str) -> str:
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return str(self)

    # --- NumPy-like attributes ----------------------------------------------------------------
    @property
    def dtype(self) -> _dtype.DType:
        return _dtype.from_numpy(self._data.dtype)

    @property
    def shape(self) -> tuple:
        return self._data.shape

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def size(self) -> int:
        return self._data.size

    @property
    def itemsize(self) -> int:
        return self._data.itemsize

    @property
    def nbytes(self) -> int:
        return self._data.nbytes

    @property
    def T(self) -> Tensor:
        return core.transpose(self, None)

    def dim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return self._data.size

    def asnumpy(self) -> np.ndarray:
        return np.array(self._data)

    numpy = asnumpy

    def item(self, *index: Any) -> Any:
        return self._data.item(*index)

    def tolist(self) -> Any:
        return self._data.tolist()

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("Not support len of a 0-D tensor")
        return len(self._data)

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (core.getitem(self, i) for i in range(len(self._data)))

    def __bool__(self) -> bool:
        return bool(self._data)

    def __float__(self) -> float:
        return float(self._data)

    def __int__(self) -> int:
        return int(self._data)

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub":
            raise TypeError(
                "Only integer tensors of a single element can be converted to an index."
            )
        return int(self._data)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self._data if dtype is None else self._data.astype(dtype)

    __hash__ = object.__hash__

    def __eq__(self, other: object) -> Any:
        if not isinstance(other, (int, float, core.Tensor)):
            return False
        return core.eq(self, other)

    def __ne__(self, other: object) -> Any:
        if not isinstance(other, (int, float, core.Tensor)):
            return True
        return core.ne(self, other)

    def __floordiv__(self, other: Any) -> Tensor:
        return _wrap_like(self, np.floor_divide(self._data, _raw(other)))

    def __rfloordiv__(self, other: Any) -> Tensor:
        return _wrap_like(self, np.floor_divide(_raw(other), self._data))

    def __mod__(self, other: Any) -> Tensor:
        return core.sub(self, core.mul(core.floor(core.div(self, other)), other))

    def __setitem__(self, index: Any, value: Any) -> None:
        index = core.raw(index) if isinstance(index, core.Tensor) else index
        self._data[index] = _raw(value)

    def __copy__(self) -> Tensor:
        return _wrap_like(self, self._data.copy())

    def __deepcopy__(self, memo: dict) -> Tensor:
        return self.__copy__()

    def __getstate__(self) -> dict:
        return {"data": self._data}

    def __setstate__(self, state: dict) -> None:
        self._data = state["data"]
        self.requires_grad = False
        self._ctx = None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        raise missing(f"mindspore.Tensor.{name}")

    # --- dtype ----------------------------------------------------------------------------------
    def astype(self, dtype: Any, copy: bool = True) -> Tensor:
        return core.cast(self, _dtype.to_numpy(dtype))

    def to(self, dtype: Any = None, *args: Any, **kwargs: Any) -> Tensor:
        return self if dtype is None or isinstance(dtype, str) else self.astype(dtype)

    def float(self) -> Tensor:
        return self.astype(_dtype.float32)

    def half(self) -> Tensor:
        return self.astype(_dtype.float16)

    def double(self) -> Tensor:
        return self.astype(_dtype.float64)

    def int(self) -> Tensor:
        return self.astype(_dtype.int32)

    def long(self) -> Tensor:
        return self.astype(_dtype.int64)

    def bool(self) -> Tensor:
        return self.astype(_dtype.bool_)

    def set_dtype(self, dtype: Any) -> Tensor:
        self._data = self._data.astype(_dtype.to_numpy(dtype))
        return self

    # --- arithmetic methods --------------------------------------------------------------------
    def add(self, other: Any) -> Tensor:
        return core.add(self, other)

    def sub(self, other: Any) -> Tensor:
        return core.sub(self, other)

    def mul(self, other: Any) -> Tensor:
        return core.mul(self, other)

    def div(self, other: Any) -> Tensor:
        return core.div(self, other)

    def pow(self, exponent: Any) -> Tensor:
        return core.pow(self, exponent)

    def matmul(self, other: Any) -> Tensor:
        return core.matmul(self, other)

    def neg(self) -> Tensor:
        return core.neg(self)

    def abs(self) -> Tensor:
        return core.abs(self)

    def exp(self) -> Tensor:
        return core.exp(self)

    def log(self) -> Tensor:
        return core.log(self)

    def sqrt(self) -> Tensor:
        return core.sqrt(self)

    def square(self) -> Tensor:
        return core.mul(self, self)

    def sin(self) -> Tensor:
        return core.sin(self)

    def cos(self) -> Tensor:
        return core.cos(self)

    def tanh(self) -> Tensor:
        return core.tanh(self)

    def sigmoid(self) -> Tensor:
        return core.sigmoid(self)

    def relu(self) -> Tensor:
        return core.relu(self)

    def sign(self) -> Tensor:
        return core.sign(self)

    def floor(self) -> Tensor:
        return core.floor(self)

    def ceil(self) -> Tensor:
        return core.ceil(self)

    def round(self) -> Tensor:
        return core.round(self)

    def clip(self, xmin: Any = None, xmax: Any = None) -> Tensor:
        return core.clamp(self, _raw_or_none(xmin), _raw_or_none(xmax))

    def clamp(self, min: Any = None, max: Any = None) -> Tensor:
        return core.clamp(self, _raw_or_none(min), _raw_or_none(max))

    def maximum(self, other: Any) -> Tensor:
        return core.maximum(self, other)

    def minimum(self, other: Any) -> Tensor:
        return core.minimum(self, other)

    def eq(self, other: Any) -> Tensor:
        return core.eq(self, other)

    def ne(self, other: Any) -> Tensor:
        return core.ne(self, other)

    def lt(self, other: Any) -> Tensor:
        return core.lt(self, other)

    def le(self, other: Any) -> Tensor:
        return core.le(self, other)

    def gt(self, other: Any) -> Tensor:
        return core.gt(self, other)

    def ge(self, other: Any) -> Tensor:
        return core.ge(self, other)

    def isnan(self) -> Tensor:
        return _wrap_like(self, np.isnan(self._data))

    def isfinite(self) -> Tensor:
        return _wrap_like(self, np.isfinite(self._data))

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
    ) -> Tensor:
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
    ) -> Tensor:
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
    ) -> Tensor:
        axis, keep_dims = _dim_args(axis, keep_dims, dim, keepdim)
        return _wrap_like(self, np.prod(self._data, axis=axis, keepdims=keep_dims))

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
            return reduce(self, dim, keepdim), wrap(np.asarray(index, np.int64))
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
    ) -> Tensor:
        axis, keepdims = _dim_args(axis, keepdims, dim, keepdim)
        return core.argmax(self, axis, keepdims)

    def argmin(
        self,
        axis: Any = None,
        keepdims: bool = False,
        *,
        dim: Any = None,
        keepdim: Any = None,
    ) -> Tensor:
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
    ) -> Tensor:
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
    ) -> Tensor:
        axis, keepdims = _dim_args(axis, keepdims, dim, keepdim)
        return core.sqrt(core.var(self, axis, ddof, keepdims))

    def norm(self, ord: Any = None, dim: Any = None, keepdim: bool = False) -> Tensor:
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
    ) -> Tensor:
        axis, keep_dims = _dim_args(axis, keep_dims, dim, keepdim)
        return _wrap_like(self, np.all(self._data, axis=axis, keepdims=keep_dims))

    def any(
        self,
        axis: Any = None,
        keep_dims: bool = False,
        *,
        dim: Any = None,
        keepdim: Any = None,
    ) -> Tensor:
        axis, keep_dims = _dim_args(axis, keep_dims, dim, keepdim)
        return _wrap_like(self, np.any(self._data, axis=axis, keepdims=keep_dims))

    def cumsum(self, axis: Any = None, dtype: Any = None, *, dim: Any = None) -> Tensor:
        return _wrap_like(
            self, np.cumsum(self._data, axis=axis if dim is None else dim)
        )

    # --- shape ----------------------------------------------------------------------------------
    def reshape(self, *shape: Any) -> Tensor:
        return core.reshape(self, _shape_args(shape))

    view = reshape

    def flatten(
        self, order: str = "C", *, start_dim: int = 0, end_dim: int = -1
    ) -> Tensor:
        return core.flatten(self, start_dim, end_dim)

    def ravel(self) -> Tensor:
        return core.reshape(self, (-1,))

    def transpose(self, *axes: Any) -> Tensor:
        """A permutation, or (two ints, as MindSpore 2.x also accepts) torch's swap of two dims."""
        if len(axes) == 2 and all(isinstance(a, int) for a in axes):
            return core.swapaxes(self, axes[0], axes[1])
        axes = _shape_args(axes)
        return core.transpose(self, axes or None)

    def permute(self, *axes: Any) -> Tensor:
        return core.transpose(self, _shape_args(axes))

    def swapaxes(self, axis0: int, axis1: int) -> Tensor:
        return core.swapaxes(self, axis0, axis1)

    def squeeze(self, axis: Any = None) -> Tensor:
        return core.squeeze(self, _axes(axis))

    def unsqueeze(self, dim: int) -> Tensor:
        return core.unsqueeze(self, dim)

    def expand_dims(self, axis: int) -> Tensor:
        return core.unsqueeze(self, axis)

    def broadcast_to(self, shape: Any) -> Tensor:
        return core.broadcast_to(self, tuple(shape))

    def expand_as(self, other: Any) -> Tensor:
        return core.broadcast_to(self, tuple(other.shape))

    def tile(self, reps: Any) -> Tensor:
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

    def expand(self, *size: Any) -> Tensor:
        size = _shape_args(size)
        shape = tuple(
            self.shape[i - len(size) + self.ndim] if s == -1 else s
            for i, s in enumerate(size)
        )
        return core.broadcast_to(self, shape)

    def copy(self) -> Tensor:
        return core.copy(self)

    def clone(self) -> Tensor:
        return core.copy(self)

    def softmax(self, axis: int = -1) -> Tensor:
        return core.softmax(self, axis)

    def masked_fill(self, mask: Any, value: Any) -> Tensor:
        return core.where(_raw(mask), _raw(value), self)

    def fill(self, value: Any) -> Tensor:
        return _wrap_like(self, np.full_like(self._data, value))

    def assign_value(self, value: Any) -> Tensor:
        self._data = _array_from(value, self._data.dtype)
        return self

    def zero_(self) -> Tensor:
        self._data[...] = 0
        return self

    # --- in place (on the array; MindSpore records nothing outside grad) ---------------------------
    def copy_(self, src: Any, non_blocking: bool = False) -> Tensor:
        self._data[...] = _raw(src)
        return self

    def fill_(self, value: Any) -> Tensor:
        self._data[...] = _raw(value)
        return self

    def add_(self, other: Any, *, alpha: Any = 1) -> Tensor:
        self._data[...] = self._data + np.asarray(_raw(other)) * alpha
        return self

    def sub_(self, other: Any, *, alpha: Any = 1) -> Tensor:
        self._data[...] = self._data - np.asarray(_raw(other)) * alpha
        return self

    def mul_(self, other: Any) -> Tensor:
        self._data[...] = self._data * _raw(other)
        return self

    def div_(self, other: Any) -> Tensor:
        self._data[...] = self._data / _raw(other)
        return self

    def clamp_(self, min: Any = None, max: Any = None) -> Tensor:
        self._data[...] = np.clip(self._data, _raw_or_none(min), _raw_or_none(max))
        return self

    def exp_(self) -> Tensor:
        self._data[...] = np.exp(self._data)
        return self

    def masked_fill_(self, mask: Any, value: Any) -> Tensor:
        self._data[np.asarray(_raw(mask), bool)] = _raw(value)
        return self

    def uniform_(
        self, from_: float = 0.0, to: float = 1.0, *, generator: Any = None
    ) -> Tensor:
        self._data[...] = core.rng_uniform(self.shape, from_, to, self._data.dtype)
        return self

    def normal_(
        self, mean: float = 0.0, std: float = 1.0, *, generator: Any = None
    ) -> Tensor:
        self._data[...] = core.rng_normal(self.shape, mean, std, self._data.dtype)
        return self

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        return self

    # --- more torch-style methods MindSpore 2.x tensors have -------------------------------------
    def new_zeros(self, size: Any, dtype: Any = None) -> Tensor:
        return wrap(
            np.zeros(
                tuple(size) if not isinstance(size, int) else (size,), self._np(dtype)
            )
        )

    def new_ones(self, size: Any, dtype: Any = None) -> Tensor:
        return wrap(
            np.ones(
                tuple(size) if not isinstance(size, int) else (size,), self._np(dtype)
            )
        )

    def _np(self, dtype: Any) -> np.dtype:
        return self._data.dtype if dtype is None else _dtype.to_numpy(dtype)

    def view_as(self, other: Any) -> Tensor:
        return core.reshape(self, tuple(other.shape))

    reshape_as = view_as

    def t(self) -> Tensor:
        return core.transpose(self, None)

    def mm(self, other: Any) -> Tensor:
        return core.matmul(self, other)

    bmm = mm

    def dot(self, other: Any) -> Tensor:
        return core.sum(core.mul(self, other))

    def outer(self, other: Any) -> Tensor:
        return core.mul(core.unsqueeze(self, -1), other)

    def reciprocal(self) -> Tensor:
        return core.div(1.0, self)

    def rsqrt(self) -> Tensor:
        return core.div(1.0, core.sqrt(self))

    def erf(self) -> Tensor:
        return core.erf(self)

    def amax(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        return core.max(self, _axes(axis), keepdims)

    def amin(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        return core.min(self, _axes(axis), keepdims)

    def logsumexp(
        self,
        axis: Any = None,
        keepdims: bool = False,
        *,
        dim: Any = None,
        keepdim: Any = None,
    ) -> Tensor:
        axis, keepdims = _dim_args(axis, keepdims, dim, keepdim)
        return core.logsumexp(self, axis, keepdims)

    def index_select(self, axis: int, index: Any) -> Tensor:
        axis = axis % self.ndim
        return core.getitem(self, (slice(None),) * axis + (np.asarray(_raw(index)),))

    def argsort(self, axis: int = -1, descending: bool = False) -> Tensor:
        data = -self._data if descending else self._data
        return wrap(np.argsort(data, axis=axis, kind="stable").astype(np.int64))

    def flip(self, dims: Any) -> Tensor:
        dims = (dims,) if isinstance(dims, int) else tuple(dims)
        index = tuple(
            slice(None, None, -1) if i in [d % self.ndim for d in dims] else slice(None)
            for i in range(self.ndim)
        )
        return core.getitem(self, index)

    def tril(self, diagonal: int = 0) -> Tensor:
        return core.mul(
            self, np.tril(np.ones(self.shape[-2:], self._data.dtype), diagonal)
        )

    def triu(self, diagonal: int = 0) -> Tensor:
        return core.mul(
            self, np.triu(np.ones(self.shape[-2:], self._data.dtype), diagonal)
        )

    def isclose(
        self,
        other: Any,
        rtol: float = 1e-5,
        atol: float = 1e-8,
        equal_nan: bool = False,
    ) -> Tensor:
        return wrap(np.isclose(self._data, _raw(other), rtol, atol, equal_nan))

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

    def init_data(self, *args: Any, **kwargs: Any) -> Tensor:
        return self

    def is_contiguous(self) -> bool:
        return True

    def contiguous(self) -> Tensor:
        return self


def _raw(value: Any) -> Any:
    return value._data if isinstance(value, core.Tensor) else value


def _raw_or_none(value: Any) -> Any:
    return None if value is None else _raw(value)


def _wrap_like(like: Any, array: np.ndarray) -> Tensor:
    cls = like._out_cls if isinstance(like, core.Tensor) else Tensor
    return core.wrap(cls, np.asarray(array))


def wrap(array: Any) -> Tensor:
    """A mindspore Tensor around an ndarray (no copy, no graph)."""
    return core.wrap(Tensor, np.asarray(array))


def as_tensor(value: Any, dtype: Any = None) -> Any:
    if isinstance(value, core.Tensor):
        return value if dtype is None else core.cast(value, _dtype.to_numpy(dtype))
    return Tensor(value, dtype)


_PARAMETER_COUNTER = itertools.count(1)
DEFAULT_PARAMETER_NAME = "Parameter"


class Parameter(Tensor):
    """A named tensor that a Cell owns. ``requires_grad`` is both MindSpore's trainable flag and the
    engine's flag, so only trainable parameters are recorded while a gradient is taken."""

    def __init__(
        self,
        default_input: Any,
        name: str | None = None,
        requires_grad: bool = True,
        layerwise_parallel: bool = False,
        parallel_optimizer: bool = True,
        storage_format: str = "",
        device: Any = None,
    ) -> None:
        from .common.initializer import Initializer

        if isinstance(default_input, Initializer):
            array = default_input.init_data()._data
        elif isinstance(default_input, numbers.Number) and not isinstance(
            default_input, core.Tensor
        ):
            array = _array_from(default_input)
        else:
            array = _array_from(default_input)
        self._data = np.asarray(array)
        self.requires_grad = bool(requires_grad)
        self._ctx = None
        self.name = name if name is not None else DEFAULT_PARAMETER_NAME
        self._id = next(_PARAMETER_COUNTER)

    _out_cls = Tensor

    @property
    def data(self) -> Tensor:
        """MindSpore's ``param.data``: a Tensor over the same array."""
        return wrap(self._data)

    @data.setter
    def data(self, value: Any) -> None:
        self.set_data(value)

    @property
    def trainable(self) -> bool:
        return self.requires_grad

    @trainable.setter
    def trainable(self, flag: bool) -> None:
        self.requires_grad = bool(flag)

    def set_data(self, data: Any, slice_shape: bool = False) -> Parameter:
        array = _array_from(data)
        if self._data.dtype.kind == "f" or array.dtype.kind != "f":
            array = array.astype(self._data.dtype, copy=False)
        self._data = np.array(array)
        return self

    def value(self) -> Tensor:
        return wrap(self._data)

    def clone(self, init: str = "same") -> Parameter:
        return Parameter(wrap(self._data.copy()), self.name, self.requires_grad)

    def asnumpy(self) -> np.ndarray:
        return np.array(self._data)

    def __str__(self) -> str:
        return (
            f"Parameter (name={self.name}, shape={self.shape}, dtype={self.dtype}, "
            f"requires_grad={self.requires_grad})"
        )

    __repr__ = __str__

    def __copy__(self) -> Parameter:
        return Parameter(wrap(self._data.copy()), self.name, self.requires_grad)

    def __deepcopy__(self, memo: dict) -> Parameter:
        return self.__copy__()

    def __reduce__(self):
        return (Parameter, (np.array(self._data), self.name, self.requires_grad))


class ParameterTuple(tuple):
    """A tuple of Parameters (``optimizer.parameters``)."""

    def __new__(cls, iterable: Any = ()) -> ParameterTuple:  # noqa: PYI034
        items = tuple(iterable)
        for item in items:
            if not isinstance(item, Parameter):
                raise TypeError(
                    f"ParameterTuple input should be Parameter, but got {type(item).__name__}"
                )
        return super().__new__(cls, items)

    def clone(self, prefix: str, init: str = "same") -> ParameterTuple:
        out = []
        for p in self:
            q = p.clone(init)
            q.name = f"{prefix}.{p.name}"
            out.append(q)
        return ParameterTuple(out)


def tensor(input_data: Any = None, dtype: Any = None, **kwargs: Any) -> Tensor:
    return Tensor(input_data, dtype)


def is_tensor(obj: Any) -> bool:
    return isinstance(obj, core.Tensor)
