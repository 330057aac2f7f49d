"""Errors for APIs the facade does not provide: a clear NotImplementedError, never a wrong number."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def missing(api: str) -> NotImplementedError:
    return NotImplementedError(f"shims: {api} is not implemented")


def module_getattr(module_name: str) -> Callable[[str], Any]:
    """A module-level ``__getattr__`` that names the missing attribute under its public module."""
    public = module_name.split(".shims.", 1)[-1]

    def __getattr__(name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise missing(f"{public}.{name}")

    return __getattr__
