"""``mindspore.Tensor``, ``Parameter`` and ``ParameterTuple`` on the shared engine."""

from __future__ import annotations

import itertools
import numbers
from typing import Any

import numpy as np

from .. import core
from . import _dtype, _printing
from ._missing import missing
from ._tensor_methods import TensorMethods, _raw


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


class Tensor(TensorMethods, core.Tensor):
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

    # --- gradient hooks (PyNative) ---------------------------------------------------------------
    def register_hook(self, hook: Any) -> Any:
        """``hook(grad)`` runs when a gradient function reaches this tensor; a returned tensor
        replaces the gradient."""
        from ._grad import register_hook

        return register_hook(self, hook)


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
