"""torch.nn on the shared engine."""

from __future__ import annotations

from typing import Any

from . import functional, init, utils  # noqa: F401
from .layers import *
from .layers import _Loss, _WeightedLoss  # noqa: F401
from .module import (  # noqa: F401
    Buffer,
    Module,
    ModuleDict,
    ModuleList,
    Parameter,
    ParameterDict,
    ParameterList,
    Sequential,
)

parameter = None
del parameter


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    raise NotImplementedError(f"shims: torch.nn.{name} is not implemented")
