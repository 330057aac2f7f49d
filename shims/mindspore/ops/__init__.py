"""``mindspore.ops``: functional operators, operator classes and gradient transforms."""

from __future__ import annotations

from .._grad import GradOperation, stop_gradient  # noqa: F401
from .._missing import module_getattr
from . import functional, operations  # noqa: F401
from ._functional import *
from ._functional import (  # noqa: F401
    abs,
    all,
    any,
    max,
    min,
    pow,
    round,
    sum,
)
from ._primitives import *
from ._primitives import partial  # noqa: F401

__getattr__ = module_getattr(__name__)
