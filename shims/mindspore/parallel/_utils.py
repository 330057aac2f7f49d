"""The helpers MindSpore's training cells import: a single device, no gradient reduction."""

from __future__ import annotations

from ..context import ParallelMode


def _get_device_num() -> int:
    return 1


def _get_gradients_mean() -> bool:
    return False


def _get_parallel_mode() -> str:
    return ParallelMode.STAND_ALONE
