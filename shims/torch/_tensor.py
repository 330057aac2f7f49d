"""torch.Tensor over the shared engine: tape semantics, grad_fn names, .grad accumulation."""

from __future__ import annotations

import builtins
from collections import namedtuple
from typing import Any

import numpy as np

from .. import core as C
from . import _dtypes as D
from . import _format

ndarray = np.ndarray
_core_wrap = C.wrap


class Size(tuple):
    def __getitem__(self, index: Any) -> Any:
        out = tuple.__getitem__(self, index)
        return Size(out) if isinstance(index, slice) else out

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(n) for n in self)}])"

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n


class device:
    __slots__ = ("index", "type")

    def __init__(self, type: Any = "cpu", index: int | None = None) -> None:
        if isinstance(type, device):
            type, index = type.type, type.index
        text = str(type)
        if ":" in text:
            text, idx = text.split(":")
            index = int(idx)
        self.type = text
        self.index = index

    def __repr__(self) -> str:
        return (
            f"device(type='{self.type}')"
            if self.index is None
            else f"device(type='{self.type}', index={self.index})"
        )

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        return (
            str(self) == str(device(other))
            if isinstance(other, (str, device))
            else NotImplemented
        )

    def __hash__(self) -> int:
        return hash(str(self))


CPU = device("cpu")


def _check_device(dev: Any) -> None:
    if dev is None:
        return
    kind = dev.type if isinstance(dev, device) else str(dev).split(":")[0]
    if kind != "cpu":
        raise RuntimeError(
            "Torch not compiled with CUDA enabled"
            if kind == "cuda"
            else f"shims: device {dev!r} is not available"
        )


# ------------------------------------------------------------------ grad_fn objects
_GRAD_FN_CLASSES: dict[str, type] = {}


class _GradFnBase:
    __slots__ = ("_node",)

    def __init__(self, node: C.Node) -> None:
        self._node = node

    def name(self) -> str:
        return type(self).__name__

    @property
    def next_functions(self) -> tuple:
        out = []
        for p in self._node.inputs:
            if isinstance(p, C.Tensor) and p.requires_grad:
                out.append(
                    (grad_fn_of(p) if p._ctx is not None else AccumulateGrad(p), 0)
                )
            elif isinstance(p, C.Tensor):
                out.append((None, 0))
        return tuple(out)

    @property
    def metadata(self) -> dict:
        return {}

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {hex(id(self))}>"


class AccumulateGrad:
    __slots__ = ("variable",)

    def __init__(self, variable: Any) -> None:
        self.variable = variable

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    next_functions = ()

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {hex(id(self))}>"


def _grad_fn_class(name: str) -> type:
    cls = _GRAD_FN_CLASSES.get(name)
    if cls is None:
        cls = _GRAD_FN_CLASSES[name] = type(name, (_GradFnBase,), {"__slots__": ()})
    return cls


def _is_basic_index(index: Any) -> str:
    items = index if isinstance(index, tuple) else (index,)
    if any(isinstance(i, (ndarray, list)) for i in items):
        return "IndexBackward0"
    if any(isinstance(i, (int, np.integer)) for i in items):
        return "SelectBackward0"
    return "SliceBackward0"


def torch_name(node: C.Node) -> str:
    """torch's grad_fn name for a node recorded by the engine (facade functions may set it directly)."""
    if node.name is not None:
        return node.name
    name = node.prim.name
    p = node.params
    if name in ("sum", "mean", "max", "min"):
        base = {"sum": "Sum", "mean": "Mean", "max": "Max", "min": "Min"}[name]
        full = p.get("axis") is None
        if name in ("max", "min"):
            return f"{base}Backward1" if full else f"{base}Backward0"
        return f"{base}Backward0" if full else f"{base}Backward1"
    if name == "pow":
        a, b = node.inputs
        if isinstance(a, C.Tensor) and isinstance(b, C.Tensor):
            return "PowBackward1"
        return "PowBackward0" if isinstance(a, C.Tensor) else "PowBackward2"
    if name == "matmul":
        a, b = node.arrays
        if a.ndim == 2 and b.ndim == 2:
            return "MmBackward0"
        if a.ndim == 1 and b.ndim == 1:
            return "DotBackward0"
        if a.ndim == 2 and b.ndim == 1:
            return "MvBackward0"
        return "UnsafeViewBackward0" if a.ndim > 2 or b.ndim > 2 else "SqueezeBackward4"
    if name == "linear":
        x, _, b = node.arrays
        if x.ndim != 2:
            return "ViewBackward0"
        return "AddmmBackward0" if b is not None else "MmBackward0"
    if name == "squeeze":
        return "SqueezeBackward0" if p.get("axis") is None else "SqueezeBackward1"
    if name == "getitem":
        return _is_basic_index(p["index"])
    return _SIMPLE_NAMES.get(name, name[:1].upper() + name[1:] + "Backward0")


_SIMPLE_NAMES = {
    "log1p": "Log1PBackward0",
    "clamp": "ClampBackward1",
    "reshape": "ViewBackward0",
    "transpose": "PermuteBackward0",
    "unsqueeze": "UnsqueezeBackward0",
    "broadcast_to": "ExpandBackward0",
    "concat": "CatBackward0",
    "log_softmax": "LogSoftmaxBackward0",
    "cast": "ToCopyBackward0",
    "copy": "CloneBackward0",
    "sum_to": "SumBackward1",
    "index_add": "IndexPutBackward0",
    "scatter_add": "ScatterAddBackward0",
    "pad": "ConstantPadNdBackward0",
    "im2col": "Im2ColBackward0",
    "col2im": "Col2ImBackward0",
}


def grad_fn_of(t: C.Tensor) -> Any:
    node = t._ctx
    if node is None:
        return None
    if node.aux is None:
        node.aux = _grad_fn_class(torch_name(node))(node)
    return node.aux


def named(t: C.Tensor, name: str) -> Any:
    """Give the node that produced ``t`` torch's grad_fn name."""
    if t._ctx is not None:
        t._ctx.name = name
    return t


# ------------------------------------------------------------------ conversions
def to_array(value: Any, dtype: Any = None) -> ndarray:
    """torch.tensor's inference: Python floats -> default float, ints -> int64, bools -> bool."""
    np_dtype = None if dtype is None else D.to_numpy_dtype(dtype)
    if isinstance(value, C.Tensor):
        arr = value._data
        return (
            arr.astype(np_dtype)
            if np_dtype is not None and arr.dtype != np_dtype
            else arr.copy()
        )
    if isinstance(value, ndarray):
        arr = value.copy()
    elif isinstance(value, (list, tuple)):
        arr = np.array(_unwrap_nested(value))
        if arr.dtype == np.float64 and not _has_numpy_f64(value):
            arr = arr.astype(D.DEFAULT[0].np)
    elif isinstance(value, bool):
        arr = np.array(value)
    elif isinstance(value, (int, np.integer)) and not isinstance(value, np.generic):
        arr = np.array(value, np.int64)
    elif isinstance(value, float):
        arr = np.array(value, D.DEFAULT[0].np)
    else:
        arr = np.array(value)
    if (
        arr.dtype.kind in "iu"
        and arr.dtype not in (np.uint8, np.int8, np.int16, np.int32)
        and not isinstance(value, (ndarray, np.generic))
    ):
        arr = arr.astype(np.int64)
    if arr.dtype.kind == "U" or arr.dtype == object:
        raise TypeError(f"Could not infer dtype of {type(value).__name__}")
    if np_dtype is not None and arr.dtype != np_dtype:
        arr = arr.astype(np_dtype)
    return arr


def _unwrap_nested(value: Any) -> Any:
    if isinstance(value, C.Tensor):
        return value._data
    if isinstance(value, (list, tuple)):
        return [_unwrap_nested(v) for v in value]
    return value


def _has_numpy_f64(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return builtins.any(_has_numpy_f64(v) for v in value)
    if isinstance(value, C.Tensor):
        return value._data.dtype == np.float64
    return (
        isinstance(value, (np.float64, ndarray))
        and np.asarray(value).dtype == np.float64
    )


_RETURN_TYPES: dict[str, type] = {}


def return_type(op: str) -> type:
    """torch.return_types.<op>: a (values, indices) named tuple printed as torch prints it."""
    cls = _RETURN_TYPES.get(op)
    if cls is None:
        base = namedtuple(op, ["values", "indices"])

        def __repr__(self: Any) -> str:
            return f"torch.return_types.{op}(\nvalues={self.values!r},\nindices={self.indices!r})"

        cls = _RETURN_TYPES[op] = type(
            op, (base,), {"__slots__": (), "__repr__": __repr__}
        )
    return cls


def _shape_args(args: tuple) -> tuple:
    if len(args) == 1 and isinstance(args[0], (tuple, list, Size)):
        return tuple(int(a) for a in args[0])
    return tuple(int(a) for a in args)


def _raw(x: Any) -> Any:
    return x._data if isinstance(x, C.Tensor) else x


def _float_only(arr: ndarray) -> None:
    if arr.dtype.kind not in "fc":
        raise RuntimeError(
            "only Tensors of floating point and complex dtype can require gradients"
        )


# torch.autograd.backward, bound once the autograd module has been imported.
AUTOGRAD_BACKWARD: list = [None, None]


class MissingAttribute(NotImplementedError, AttributeError):
    """A torch.Tensor attribute the shim lacks: NotImplementedError, and hasattr() is False."""


LEAF_INPLACE = (
    "a leaf Variable that requires grad is being used in an in-place operation."
)


class Tensor(C.Tensor):
    """torch.Tensor: engine tensor plus torch's autograd bookkeeping and methods."""

    grad: Any = None
    _retains_grad = False
    is_cuda = False
    is_sparse = False
    is_quantized = False
    is_meta = False
    is_nested = False
    is_mps = False
    is_xpu = False
    is_mkldnn = False
    names = None
    layout = "torch.strided"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if (
            args
            and builtins.all(isinstance(a, (int, np.integer)) for a in args)
            or (len(args) == 1 and isinstance(args[0], Size))
        ):
            arr = np.zeros(_shape_args(args), D.DEFAULT[0].np)
        elif args:
            arr = to_array(args[0], D.float32)
        else:
            arr = np.zeros((0,), D.DEFAULT[0].np)
        self._data = arr
        self.requires_grad = False
        self._ctx = None

    # -------------------------------------------------------------- metadata
    @property
    def data(self) -> Tensor:
        return _core_wrap(Tensor, self._data)

    @data.setter
    def data(self, value: Any) -> None:
        self._data = value._data if isinstance(value, C.Tensor) else np.asarray(value)

    @property
    def dtype(self) -> D.dtype:
        return D.from_numpy_dtype(self._data.dtype)

    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim: int | None = None) -> Any:
        return Size(self._data.shape) if dim is None else self._data.shape[dim]

    def dim(self) -> int:
        return self._data.ndim

    ndimension = dim

    def numel(self) -> int:
        return int(self._data.size)

    nelement = numel

    def element_size(self) -> int:
        return self._data.itemsize

    @property
    def device(self) -> device:
        return CPU

    @property
    def grad_fn(self) -> Any:
        return grad_fn_of(self)

    @property
    def is_leaf(self) -> bool:
        return self._ctx is None

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad and self._ctx is not None

    @property
    def T(self) -> Tensor:
        return C.transpose(self, tuple(range(self._data.ndim))[::-1])

    @property
    def mT(self) -> Tensor:
        return self.transpose(-2, -1)

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind == "f"

    def is_contiguous(self, memory_format: Any = None) -> bool:
        return True

    def get_device(self) -> int:
        return -1

    def stride(self, dim: int | None = None) -> Any:
        strides = tuple(s // self._data.itemsize for s in self._data.strides)
        return strides if dim is None else strides[dim]

    # -------------------------------------------------------------- autograd
    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        if self._ctx is not None and not requires_grad:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
            )
        if requires_grad:
            _float_only(self._data)
        self.requires_grad = bool(requires_grad)
        return self

    def retain_grad(self) -> None:
        if not self.requires_grad:
            raise RuntimeError(
                "can't retain_grad on Tensor that has requires_grad=False"
            )
        if self._ctx is not None:
            self._retains_grad = True
            from .autograd import _RETAINS

            _RETAINS[0] = True

    def detach(self) -> Tensor:
        return _core_wrap(Tensor, self._data)

    def detach_(self) -> Tensor:
        self._ctx = None
        self.requires_grad = False
        return self

    def backward(
        self,
        gradient: Any = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
        inputs: Any = None,
    ) -> None:
        if gradient is None and inputs is None and not create_graph:
            AUTOGRAD_BACKWARD[1](self, retain_graph)
            return
        AUTOGRAD_BACKWARD[0](
            [self],
            None if gradient is None else [gradient],
            retain_graph,
            create_graph,
            inputs=inputs,
        )

    def register_hook(self, hook: Any) -> Any:
        from .autograd.function import register_hook

        return register_hook(self, hook)

    # -------------------------------------------------------------- conversion
    def item(self) -> Any:
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return self._data.reshape(()).item()

    def tolist(self) -> Any:
        return self._data.tolist()

    def numpy(self, force: bool = False) -> ndarray:
        if self.requires_grad and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
            )
        return self._data

    def __array__(self, dtype: Any = None) -> ndarray:
        return self._data if dtype is None else self._data.astype(dtype)

    def clone(self, memory_format: Any = None) -> Tensor:
        return C.copy(self)

    def contiguous(self, memory_format: Any = None) -> Tensor:
        return self

    def cpu(self) -> Tensor:
        return self

    def cuda(self, *args: Any, **kwargs: Any) -> Tensor:
        raise AssertionError("Torch not compiled with CUDA enabled")

    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        dtype = kwargs.get("dtype")
        _check_device(kwargs.get("device"))
        for a in args:
            if isinstance(a, D.dtype):
                dtype = a
            elif isinstance(a, Tensor):
                dtype = a.dtype
            elif isinstance(a, (str, device)):
                _check_device(a)
        if dtype is None or D.to_numpy_dtype(dtype) == self._data.dtype:
            return self
        return C.cast(self, D.to_numpy_dtype(dtype))

    def type(self, dtype: Any = None) -> Any:
        if dtype is None:
            return "torch." + _LEGACY_NAMES.get(self._data.dtype.name, "Tensor")
        return self.to(dtype)

    def type_as(self, other: Tensor) -> Tensor:
        return self.to(other.dtype)

    def float(self) -> Tensor:
        return self.to(D.float32)

    def double(self) -> Tensor:
        return self.to(D.float64)

    def half(self) -> Tensor:
        return self.to(D.float16)

    def long(self) -> Tensor:
        return self.to(D.int64)

    def int(self) -> Tensor:
        return self.to(D.int32)

    def bool(self) -> Tensor:
        return self.to(D.bool_)

    def new_tensor(self, data: Any, dtype: Any = None, **kw: Any) -> Tensor:
        return _core_wrap(Tensor, to_array(data, dtype or self.dtype))

    def new_zeros(self, *size: Any, dtype: Any = None, **kw: Any) -> Tensor:
        return _core_wrap(
            Tensor, np.zeros(_shape_args(size), D.to_numpy_dtype(dtype or self.dtype))
        )

    def new_ones(self, *size: Any, dtype: Any = None, **kw: Any) -> Tensor:
        return _core_wrap(
            Tensor, np.ones(_shape_args(size), D.to_numpy_dtype(dtype or self.dtype))
        )

    def new_full(
        self, size: Any, fill_value: Any, dtype: Any = None, **kw: Any
    ) -> Tensor:
        return _core_wrap(
            Tensor,
            np.full(
                _shape_args((size,)), fill_value, D.to_numpy_dtype(dtype or self.dtype)
            ),
        )

    def new_empty(self, *size: Any, dtype: Any = None, **kw: Any) -> Tensor:
        return self.new_zeros(*size, dtype=dtype)

    # -------------------------------------------------------------- printing
    def __repr__(self, *, tensor_contents: Any = None) -> str:
        gf = grad_fn_of(self)
        dt = self._data.dtype
        default = dt == D.DEFAULT[0].np or dt == np.int64 or dt == np.bool_
        return _format.tensor_repr(
            self._data,
            repr(self.dtype),
            default,
            None if gf is None else type(gf).__name__,
            self.requires_grad,
        )

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    # -------------------------------------------------------------- Python protocol
    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return len(self._data)

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(len(self._data)))

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError(
                "Boolean value of Tensor with more than one value is ambiguous"
            )
        return bool(self._data.reshape(()))

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError(
                "only integer tensors of a single element can be converted to an index"
            )
        return int(self.item())

    def __contains__(self, value: Any) -> bool:
        return bool(np.any(self._data == _raw(value)))

    def __reduce_ex__(self, protocol: int) -> Any:
        return (_rebuild, (self._data, self.requires_grad, type(self)))

    def __deepcopy__(self, memo: dict) -> Tensor:
        if self._ctx is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment."
            )
        new = _core_wrap(type(self), self._data.copy(), self.requires_grad)
        if self.grad is not None:
            new.grad = _core_wrap(Tensor, self.grad._data.copy())
        memo[id(self)] = new
        return new

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise MissingAttribute(f"shims: torch.Tensor.{name} is not implemented")

    __hash__ = C.Tensor.__hash__


def _rebuild(data: ndarray, requires_grad: bool, cls: type) -> Tensor:
    return _core_wrap(cls, data, requires_grad)


_LEGACY_NAMES = {
    "float32": "FloatTensor",
    "float64": "DoubleTensor",
    "float16": "HalfTensor",
    "int64": "LongTensor",
    "int32": "IntTensor",
    "int16": "ShortTensor",
    "int8": "CharTensor",
    "uint8": "ByteTensor",
    "bool": "BoolTensor",
}


def tensor_of(value: Any, like: Any = None) -> Tensor:
    if isinstance(value, C.Tensor):
        return value
    return _core_wrap(Tensor, to_array(value))


def wrap(arr: ndarray, requires_grad: bool = False) -> Tensor:
    return _core_wrap(Tensor, arr, requires_grad)
