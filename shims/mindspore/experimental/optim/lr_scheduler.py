"""``mindspore.experimental.optim.lr_scheduler``: torch's closed-form schedules."""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from ..._missing import module_getattr
from ..._tensor import Tensor


class LRScheduler:
    def __init__(self, optimizer: Any, last_epoch: int = -1) -> None:
        self.optimizer = optimizer
        self.base_lrs = list(optimizer.initial_lrs)
        self.last_epoch = last_epoch
        self._last_lr: list[float] = []
        self.step()

    def _lr_at(self, epoch: int, base: float, index: int) -> float:
        raise NotImplementedError

    def step(self, epoch: Any = None) -> None:
        self.last_epoch = self.last_epoch + 1 if epoch is None else int(epoch)
        values = [
            self._lr_at(self.last_epoch, base, i)
            for i, base in enumerate(self.base_lrs)
        ]
        for group, value in zip(self.optimizer.param_groups, values):
            group["lr"]._data[...] = np.float32(value)
        self._last_lr = values

    def get_last_lr(self) -> list:
        return [
            Tensor(np.array(group["lr"]._data)) for group in self.optimizer.param_groups
        ]


class StepLR(LRScheduler):
    def __init__(
        self, optimizer: Any, step_size: int, gamma: float = 0.1, last_epoch: int = -1
    ) -> None:
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def _lr_at(self, epoch: int, base: float, index: int) -> float:
        return base * self.gamma ** (epoch // self.step_size)


class ExponentialLR(LRScheduler):
    def __init__(self, optimizer: Any, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def _lr_at(self, epoch: int, base: float, index: int) -> float:
        return base * self.gamma**epoch


class CosineAnnealingLR(LRScheduler):
    def __init__(
        self, optimizer: Any, T_max: int, eta_min: float = 0.0, last_epoch: int = -1
    ) -> None:
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def _lr_at(self, epoch: int, base: float, index: int) -> float:
        return (
            self.eta_min
            + (base - self.eta_min) * (1 + math.cos(math.pi * epoch / self.T_max)) / 2
        )


class LambdaLR(LRScheduler):
    def __init__(self, optimizer: Any, lr_lambda: Any, last_epoch: int = -1) -> None:
        n = len(optimizer.param_groups)
        self.lr_lambdas: list[Callable] = (
            list(lr_lambda) if isinstance(lr_lambda, (list, tuple)) else [lr_lambda] * n
        )
        super().__init__(optimizer, last_epoch)

    def _lr_at(self, epoch: int, base: float, index: int) -> float:
        return base * self.lr_lambdas[index](epoch)


__getattr__ = module_getattr(__name__)
