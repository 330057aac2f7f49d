"""torch.cuda on a CPU-only machine: nothing is available; amp pieces disable themselves."""

from __future__ import annotations

from typing import Any

from . import amp  # noqa: F401


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def manual_seed(seed: int) -> None:
    return None


def manual_seed_all(seed: int) -> None:
    return None


def empty_cache() -> None:
    return None


def _no_cuda(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("Torch not compiled with CUDA enabled")


current_device = synchronize = get_device_name = set_device = _no_cuda


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    raise NotImplementedError(f"shims: torch.cuda.{name} is not implemented")
