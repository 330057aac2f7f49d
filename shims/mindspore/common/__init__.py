"""``mindspore.common``."""

from .._missing import module_getattr
from .._tensor import Parameter, ParameterTuple, Tensor  # noqa: F401
from . import (
    dtype,  # noqa: F401
    initializer,  # noqa: F401
)

__getattr__ = module_getattr(__name__)
