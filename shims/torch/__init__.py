"""A NumPy-backed stand-in for ``torch`` with PyTorch's semantics (CPU, eager, tape autograd).

Anything not provided raises ``NotImplementedError("shims: torch.<name> is not implemented")``.
"""

from __future__ import annotations

import builtins
import math
import pickle
from typing import Any

import numpy as np

from .. import core as C
from . import _dtypes as D
from . import _methods  # noqa: F401  (binds Tensor methods)
from ._dtypes import (  # noqa: F401
    bfloat16,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
)
from ._format import set_printoptions  # noqa: F401
from ._grad_mode import (  # noqa: F401
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from ._ops import *
from ._ops import _t  # noqa: F401
from ._tensor import Size, Tensor, to_array, wrap
from ._tensor import device as _device_type

bool = D.bool_
float = D.float32
double = D.float64
half = D.float16
long = D.int64
int = D.int32
short = D.int16
cfloat = D.complex64
cdouble = D.complex128
strided = "torch.strided"
contiguous_format = "torch.contiguous_format"
preserve_format = "torch.preserve_format"
channels_last = "torch.channels_last"
__version__ = "2.13.0+shim"
pi = math.pi
e = math.e
inf = math.inf
nan = math.nan

_pyint = builtins.int
_pyfloat = builtins.float
_pybool = builtins.bool


def _np_dtype(dtype: Any, fallback: Any = None) -> Any:
    if dtype is None:
        return fallback if fallback is not None else D.DEFAULT[0].np
    return D.to_numpy_dtype(dtype)


def _leaf(arr: np.ndarray, requires_grad: _pybool) -> Tensor:
    t = wrap(arr)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _size(size: tuple) -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        return tuple(_pyint(s) for s in size[0])
    return tuple(_pyint(s) for s in size)


# ------------------------------------------------------------------ creation
def tensor(
    data: Any,
    dtype: Any = None,
    device: Any = None,
    requires_grad: _pybool = False,
    pin_memory: _pybool = False,
) -> Tensor:
    from ._tensor import _check_device

    _check_device(device)
    return _leaf(to_array(data, dtype), requires_grad)


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    if isinstance(data, Tensor) and (
        dtype is None or D.to_numpy_dtype(dtype) == data._data.dtype
    ):
        return data
    if isinstance(data, np.ndarray) and (
        dtype is None or D.to_numpy_dtype(dtype) == data.dtype
    ):
        return wrap(data)
    return tensor(data, dtype)


def from_numpy(ndarray: np.ndarray) -> Tensor:
    D.from_numpy_dtype(ndarray.dtype)
    return wrap(ndarray)


def is_tensor(obj: Any) -> _pybool:
    return isinstance(obj, Tensor)


def is_floating_point(input: Tensor) -> _pybool:
    return input._data.dtype.kind == "f"


def numel(input: Tensor) -> _pyint:
    return _pyint(input._data.size)


def zeros(
    *size: Any,
    dtype: Any = None,
    device: Any = None,
    requires_grad: _pybool = False,
    out: Any = None,
) -> Tensor:
    return _leaf(np.zeros(_size(size), _np_dtype(dtype)), requires_grad)


def ones(
    *size: Any,
    dtype: Any = None,
    device: Any = None,
    requires_grad: _pybool = False,
    out: Any = None,
) -> Tensor:
    return _leaf(np.ones(_size(size), _np_dtype(dtype)), requires_grad)


def empty(
    *size: Any,
    dtype: Any = None,
    device: Any = None,
    requires_grad: _pybool = False,
    **kw: Any,
) -> Tensor:
    return zeros(*size, dtype=dtype, requires_grad=requires_grad)


def full(
    size: Any,
    fill_value: Any,
    dtype: Any = None,
    device: Any = None,
    requires_grad: _pybool = False,
) -> Tensor:
    if dtype is None:
        if isinstance(fill_value, _pybool):
            dtype = D.bool_
        elif isinstance(fill_value, _pyint):
            dtype = D.int64
    return _leaf(
        np.full(_size((size,)), _raw_value(fill_value), _np_dtype(dtype)), requires_grad
    )


def _raw_value(v: Any) -> Any:
    return v._data if isinstance(v, Tensor) else v


def _like(input: Tensor, dtype: Any) -> Any:
    return input._data.dtype if dtype is None else D.to_numpy_dtype(dtype)


def zeros_like(
    input: Tensor,
    dtype: Any = None,
    device: Any = None,
    requires_grad: _pybool = False,
    **kw: Any,
) -> Tensor:
    return _leaf(np.zeros(input._data.shape, _like(input, dtype)), requires_grad)


def ones_like(
    input: Tensor,
    dtype: Any = None,
    device: Any = None,
    requires_grad: _pybool = False,
    **kw: Any,
) -> Tensor:
    return _leaf(np.ones(input._data.shape, _like(input, dtype)), requires_grad)


def empty_like(input: Tensor, dtype: Any = None, **kw: Any) -> Tensor:
    return zeros_like(input, dtype)


def full_like(
    input: Tensor,
    fill_value: Any,
    dtype: Any = None,
    requires_grad: _pybool = False,
    **kw: Any,
) -> Tensor:
    return _leaf(
        np.full(input._data.shape, fill_value, _like(input, dtype)), requires_grad
    )


def arange(
    start: Any,
    end: Any = None,
    step: Any = 1,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: _pybool = False,
) -> Tensor:
    if end is None:
        start, end = 0, start
    values = [_raw_value(v) for v in (start, end, step)]
    floating = builtins.any(
        isinstance(v, (_pyfloat, np.floating))
        or (isinstance(v, np.ndarray) and v.dtype.kind == "f")
        for v in values
    )
    default = D.DEFAULT[0].np if floating else np.int64
    start, end, step = values
    n = _pyint(math.ceil((_pyfloat(end) - _pyfloat(start)) / _pyfloat(step)))
    arr = (
        (
            np.arange(builtins.max(n, 0), dtype=np.float64) * _pyfloat(step)
            + _pyfloat(start)
        )
        if floating
        else np.arange(start, end, step)
    )
    return _leaf(arr.astype(_np_dtype(dtype, default)), requires_grad)


def linspace(
    start: Any,
    end: Any,
    steps: _pyint,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: _pybool = False,
) -> Tensor:
    return _leaf(
        np.linspace(_pyfloat(start), _pyfloat(end), steps).astype(_np_dtype(dtype)),
        requires_grad,
    )


def eye(
    n: _pyint,
    m: Any = None,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: _pybool = False,
) -> Tensor:
    return _leaf(np.eye(n, m, dtype=_np_dtype(dtype)), requires_grad)


# ------------------------------------------------------------------ random
class Generator:
    """A private random stream (``generator=`` arguments, DataLoader, random_split)."""

    def __init__(self, device: Any = "cpu") -> None:
        self._initial_seed = 67280421310721
        self.stream = C.new_generator(self._initial_seed)
        self.device = device

    def manual_seed(self, seed: _pyint) -> Generator:
        self._initial_seed = _pyint(seed)
        self.stream = C.new_generator(seed)
        return self

    def initial_seed(self) -> _pyint:
        return self._initial_seed

    def seed(self) -> _pyint:
        value = _pyint(np.random.SeedSequence().entropy % (2**63))
        self.manual_seed(value)
        return value

    def get_state(self) -> Tensor:
        return wrap(
            np.frombuffer(
                pickle.dumps(self.stream.bit_generator.state), np.uint8
            ).copy()
        )

    def set_state(self, state: Tensor) -> Generator:
        self.stream.bit_generator.state = pickle.loads(state._data.tobytes())
        return self


_INITIAL_SEED = [0]


def manual_seed(seed: _pyint) -> Generator:
    """Seeds the shared stream (the one ``mindspore.set_seed`` seeds too)."""
    _INITIAL_SEED[0] = _pyint(seed)
    C.manual_seed(_pyint(seed))
    return default_generator


def seed() -> _pyint:
    value = _pyint(np.random.SeedSequence().entropy % (2**63))
    manual_seed(value)
    return value


def initial_seed() -> _pyint:
    return _INITIAL_SEED[0]


def get_rng_state() -> Tensor:
    return wrap(np.frombuffer(pickle.dumps(C.rng.bit_generator.state), np.uint8).copy())


def set_rng_state(state: Tensor) -> None:
    C.rng.bit_generator.state = pickle.loads(state._data.tobytes())


def _stream(generator: Generator | None) -> Any:
    """None (the shared stream) or the generator's own stream."""
    if generator is None or generator is default_generator:
        return None
    return generator.stream


def randn(
    *size: Any,
    dtype: Any = None,
    device: Any = None,
    requires_grad: _pybool = False,
    generator: Any = None,
) -> Tensor:
    values = C.rng_normal(
        _size(size), 0.0, 1.0, dtype=_np_dtype(dtype), gen=_stream(generator)
    )
    return _leaf(values, requires_grad)


def rand(
    *size: Any,
    dtype: Any = None,
    device: Any = None,
    requires_grad: _pybool = False,
    generator: Any = None,
) -> Tensor:
    values = C.rng_uniform(
        _size(size), 0.0, 1.0, dtype=_np_dtype(dtype), gen=_stream(generator)
    )
    return _leaf(values, requires_grad)


def randint(
    low: Any,
    high: Any = None,
    size: Any = None,
    *,
    dtype: Any = None,
    device: Any = None,
    generator: Any = None,
    requires_grad: _pybool = False,
) -> Tensor:
    if size is None:
        low, high, size = 0, low, high
    values = C.rng_randint(
        _pyint(low), _pyint(high), tuple(size), gen=_stream(generator)
    )
    return wrap(values.astype(_np_dtype(dtype, np.int64)))


def randperm(
    n: _pyint, *, dtype: Any = None, device: Any = None, generator: Any = None
) -> Tensor:
    return wrap(
        C.rng_permutation(n, gen=_stream(generator)).astype(_np_dtype(dtype, np.int64))
    )


def randn_like(input: Tensor, dtype: Any = None, **kw: Any) -> Tensor:
    return wrap(C.rng_normal(input._data.shape, 0.0, 1.0, dtype=_like(input, dtype)))


def rand_like(input: Tensor, dtype: Any = None, **kw: Any) -> Tensor:
    return wrap(C.rng_uniform(input._data.shape, 0.0, 1.0, dtype=_like(input, dtype)))


def randint_like(
    input: Tensor, low: Any, high: Any = None, dtype: Any = None, **kw: Any
) -> Tensor:
    if high is None:
        low, high = 0, low
    return wrap(C.rng_randint(low, high, input._data.shape).astype(_like(input, dtype)))


def normal(
    mean: Any = 0.0,
    std: Any = 1.0,
    size: Any = None,
    *,
    generator: Any = None,
    dtype: Any = None,
    **kw: Any,
) -> Tensor:
    gen = _stream(generator)
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        m, sd = _raw_value(mean), _raw_value(std)
        shape = np.broadcast(m, sd).shape
        base = C.rng_normal(shape, 0.0, 1.0, dtype=np.result_type(m, sd), gen=gen)
        return wrap((base * sd + m).astype(base.dtype))
    return wrap(
        C.rng_normal(
            tuple(size), _pyfloat(mean), _pyfloat(std), dtype=_np_dtype(dtype), gen=gen
        )
    )


def bernoulli(input: Tensor, p: Any = None, *, generator: Any = None) -> Tensor:
    probs = input._data if p is None else np.full(input._data.shape, p)
    draws = C.rng_uniform(input._data.shape, dtype=np.float64, gen=_stream(generator))
    return wrap((draws < probs).astype(input._data.dtype))


def multinomial(
    input: Tensor,
    num_samples: _pyint,
    replacement: _pybool = False,
    *,
    generator: Any = None,
) -> Tensor:
    stream = _stream(generator) or C.rng
    probs = input._data.astype(np.float64)
    rows = probs.reshape(-1, probs.shape[-1])
    out = [
        stream.choice(len(r), num_samples, replace=replacement, p=r / r.sum())
        for r in rows
    ]
    return wrap(np.array(out, np.int64).reshape(probs.shape[:-1] + (num_samples,)))


default_generator = Generator()


# ------------------------------------------------------------------ dtype defaults
def get_default_dtype() -> D.dtype:
    return D.DEFAULT[0]


def set_default_dtype(d: D.dtype) -> None:
    if d not in (D.float32, D.float64):
        raise TypeError("only floating-point types are supported as the default type")
    D.DEFAULT[0] = d
    C.set_default_float(d.np)


def promote_types(a: D.dtype, b: D.dtype) -> D.dtype:
    return D.from_numpy_dtype(np.promote_types(a.np, b.np))


def result_type(a: Any, b: Any) -> D.dtype:
    return D.from_numpy_dtype(np.result_type(_raw_value(a), _raw_value(b)))


def set_num_threads(n: _pyint) -> None:
    return None


def get_num_threads() -> _pyint:
    return 1


def use_deterministic_algorithms(mode: _pybool, *, warn_only: _pybool = False) -> None:
    return None


def compile(model: Any = None, **kwargs: Any) -> Any:
    if model is None:
        return lambda m: m
    return model


# ------------------------------------------------------------------ serialisation
def save(obj: Any, f: Any, pickle_protocol: _pyint = 2, **kwargs: Any) -> None:
    if isinstance(f, (str, bytes)) or hasattr(f, "__fspath__"):
        with open(f, "wb") as handle:
            pickle.dump(obj, handle, protocol=builtins.max(pickle_protocol, 2))
    else:
        pickle.dump(obj, f, protocol=builtins.max(pickle_protocol, 2))


def load(
    f: Any, map_location: Any = None, weights_only: Any = None, **kwargs: Any
) -> Any:
    if isinstance(f, (str, bytes)) or hasattr(f, "__fspath__"):
        with open(f, "rb") as handle:
            return pickle.load(handle)
    return pickle.load(f)


from . import amp, autograd, cuda, nn, optim, utils  # noqa: F401
from .autograd import Function  # noqa: F401

backends = None
del backends


dtype = D.dtype
device = _device_type


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    raise NotImplementedError(f"shims: torch.{name} is not implemented")
