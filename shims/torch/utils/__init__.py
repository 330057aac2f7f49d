"""torch.utils (data only)."""

from __future__ import annotations

from typing import Any

from . import data  # noqa: F401


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    raise NotImplementedError(f"shims: torch.utils.{name} is not implemented")
