"""A MindSpore 2.10 facade on the shared NumPy engine (PyNative semantics, CPU).

Differentiation is functional: ``grad`` / ``value_and_grad`` return gradients as values, nested as
in MindSpore, summing the gradients of every output unless ``has_aux``. Tensors print as MindSpore
prints them. APIs that are not provided raise ``NotImplementedError`` naming the API.
"""

from __future__ import annotations

from typing import Any

from .. import core
from . import _dtype as dtype  # noqa: F401
from . import (  # noqa: F401
    amp,
    common,
    context,
    dataset,
    experimental,
    mint,
    nn,
    ops,
    parallel,
)
from ._checkpoint import load_checkpoint, load_param_into_net, save_checkpoint  # noqa: F401
from ._dtype import (  # noqa: F401
    DType,
    bool_,
    complex64,
    complex128,
    double,
    dtype_to_nptype,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    pytype_to_dtype,
    single,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ._grad import (  # noqa: F401
    grad,
    jvp,
    value_and_grad,
    vjp,
)
from ._missing import module_getattr
from ._tensor import Parameter, ParameterTuple, Tensor, is_tensor, tensor  # noqa: F401
from .amp import DynamicLossScaleManager, FixedLossScaleManager  # noqa: F401
from .context import GRAPH_MODE, PYNATIVE_MODE, ParallelMode, get_context, set_context  # noqa: F401
from .ops import stop_gradient  # noqa: F401

__version__ = "2.10.0"

_seed: list = [None]


def set_seed(seed: int) -> None:
    """Seed the engine's one generator (``torch.manual_seed`` seeds the same one)."""
    _seed[0] = int(seed)
    core.manual_seed(int(seed))


def get_seed() -> Any:
    return _seed[0]


def manual_seed(seed: int) -> None:
    """MindSpore 2.x's global generator seed; the shim has one generator for everything."""
    set_seed(seed)


def initial_seed() -> Any:
    return _seed[0]


def set_device(device_target: str, device_id: Any = None) -> None:
    set_context(device_target=device_target)


def jit(function: Any = None, *args: Any, **kwargs: Any) -> Any:
    """Compilation is a no-op: the decorated function runs eagerly."""
    if function is None or not callable(function):
        return lambda fn: fn
    return function


ms_function = jit


def mutable(input_data: Any, dynamic_len: bool = False) -> Any:
    return input_data


float_ = float32
bool = bool_
__getattr__ = module_getattr(__name__)
