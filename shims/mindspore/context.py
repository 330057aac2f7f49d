"""``mindspore.context``: accepted and recorded; the shim always runs eagerly on the CPU."""

from __future__ import annotations

from typing import Any

from ._missing import module_getattr

GRAPH_MODE = 0
PYNATIVE_MODE = 1


class ParallelMode:
    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    HYBRID_PARALLEL = "hybrid_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"


_settings: dict[str, Any] = {
    "mode": PYNATIVE_MODE,
    "device_target": "CPU",
    "device_id": 0,
}


def set_context(**kwargs: Any) -> None:
    """Accepted and recorded; the shim always runs eagerly (like PyNative) on the CPU."""
    _settings.update(kwargs)


def get_context(attr_key: str) -> Any:
    return _settings.get(attr_key)


__getattr__ = module_getattr(__name__)
