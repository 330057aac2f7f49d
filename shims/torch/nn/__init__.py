"""torch.nn on the shared engine."""

from __future__ import annotations

from typing import Any

from . import functional, init, loss, utils  # noqa: F401
from .containers import (  # noqa: F401
    ModuleDict,
    ModuleList,
    ParameterDict,
    ParameterList,
    Sequential,
)
from .layers import *
from .loss import *
from .loss import _Loss, _WeightedLoss  # noqa: F401
from .module import Buffer, Module, Parameter  # noqa: F401

parameter = None
del parameter


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    raise NotImplementedError(f"shims: torch.nn.{name} is not implemented")
