"""``mindspore.amp``: loss scalers and ``all_finite``."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import core
from ._dtype import float32, int32
from ._missing import module_getattr
from ._tensor import Parameter, Tensor, wrap


def _map(fn, value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(_map(fn, v) for v in value)
    if isinstance(value, list):
        return [_map(fn, v) for v in value]
    return fn(value)


def all_finite(inputs: Any, status: Any = None) -> Tensor:
    """True when every tensor in ``inputs`` is free of inf and nan."""
    arrays = [np.asarray(t._data) for t in _flat(inputs)]
    return wrap(np.asarray(all(bool(np.isfinite(a).all()) for a in arrays)))


def _flat(value: Any) -> list:
    if isinstance(value, core.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _flat(v)]
    return []


class LossScaler:
    def __init__(self, scale_value: Any) -> None:
        self.scale_value = Parameter(Tensor(scale_value, float32), name="scale_value")

    def scale(self, inputs: Any) -> Any:
        return _map(lambda t: core.mul(t, self.scale_value._data.copy()), inputs)

    def unscale(self, inputs: Any) -> Any:
        return _map(lambda t: core.div(t, self.scale_value._data.copy()), inputs)

    def adjust(self, grads_finite: Any) -> Any:
        raise NotImplementedError


class StaticLossScaler(LossScaler):
    def adjust(self, grads_finite: Any) -> bool:
        return False


class DynamicLossScaler(LossScaler):
    """Grows the scale by ``scale_factor`` after ``scale_window`` finite steps; on overflow divides
    it by ``scale_factor`` (not below 1) and restarts the count."""

    def __init__(self, scale_value: Any, scale_factor: int, scale_window: int) -> None:
        super().__init__(scale_value)
        self.scale_window = scale_window
        self.scale_factor = scale_factor
        self.counter = Parameter(Tensor(0, int32), name="counter")

    def adjust(self, grads_finite: Any) -> Tensor:
        finite = bool(np.asarray(core.raw(grads_finite)))
        scale = self.scale_value._data
        if finite:
            count = int(self.counter._data) + 1
            if count >= self.scale_window:
                scale[...] = scale * self.scale_factor
                count = 0
            self.counter._data[...] = count
        else:
            scale[...] = max(float(scale) / self.scale_factor, 1.0)
            self.counter._data[...] = 0
        return wrap(np.asarray(True))


class FixedLossScaleManager:
    def __init__(
        self, loss_scale: float = 128.0, drop_overflow_update: bool = True
    ) -> None:
        self.loss_scale = float(loss_scale)
        self.drop_overflow_update = drop_overflow_update

    def get_loss_scale(self) -> float:
        return self.loss_scale

    def get_drop_overflow_update(self) -> bool:
        return self.drop_overflow_update

    def get_update_cell(self) -> Any:
        from .nn.wrap import FixedLossScaleUpdateCell

        return (
            FixedLossScaleUpdateCell(self.loss_scale)
            if self.drop_overflow_update
            else None
        )


class DynamicLossScaleManager:
    def __init__(
        self,
        init_loss_scale: float = 2**24,
        scale_factor: int = 2,
        scale_window: int = 2000,
    ) -> None:
        self.loss_scale = float(init_loss_scale)
        self.scale_factor = scale_factor
        self.scale_window = scale_window

    def get_loss_scale(self) -> float:
        return self.loss_scale

    def get_drop_overflow_update(self) -> bool:
        return True

    def get_update_cell(self) -> Any:
        from .nn.wrap import DynamicLossScaleUpdateCell

        return DynamicLossScaleUpdateCell(
            self.loss_scale, self.scale_factor, self.scale_window
        )


def init_status() -> Tensor:
    return wrap(np.zeros(8, np.float32))


__getattr__ = module_getattr(__name__)
