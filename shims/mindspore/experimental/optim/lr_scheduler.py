"""``mindspore.experimental.optim.lr_scheduler``: torch's closed-form schedules."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

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


class ReduceLROnPlateau:
    """Multiplies the lr by ``factor`` once the metric has not improved for ``patience`` steps."""

    def __init__(
        self,
        optimizer: Any,
        mode: str = "min",
        factor: float = 0.1,
        patience: int = 10,
        threshold: float = 1e-4,
        threshold_mode: str = "rel",
        cooldown: int = 0,
        min_lr: Any = 0,
        eps: float = 1e-8,
    ) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.optimizer = optimizer
        self.mode, self.factor, self.patience = mode, factor, patience
        self.threshold, self.threshold_mode = threshold, threshold_mode
        self.cooldown, self.eps = cooldown, eps
        groups = len(optimizer.param_groups)
        self.min_lrs = (
            list(min_lr) if isinstance(min_lr, (list, tuple)) else [min_lr] * groups
        )
        self.best = math.inf if mode == "min" else -math.inf
        self.num_bad_epochs = 0
        self.cooldown_counter = 0
        self.last_epoch = 0

    def _is_better(self, current: float) -> bool:
        if self.mode == "min" and self.threshold_mode == "rel":
            return current < self.best * (1.0 - self.threshold)
        if self.mode == "min":
            return current < self.best - self.threshold
        if self.threshold_mode == "rel":
            return current > self.best * (1.0 + self.threshold)
        return current > self.best + self.threshold

    def step(self, metrics: Any) -> None:
        current = float(
            np.asarray(metrics._data if hasattr(metrics, "_data") else metrics)
        )
        self.last_epoch += 1
        if self._is_better(current):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            for group, min_lr in zip(self.optimizer.param_groups, self.min_lrs):
                old = float(group["lr"]._data)
                new = max(old * self.factor, min_lr)
                if old - new > self.eps:
                    group["lr"]._data[...] = np.float32(new)
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0

    def get_last_lr(self) -> list:
        return [
            Tensor(np.array(group["lr"]._data)) for group in self.optimizer.param_groups
        ]


__getattr__ = module_getattr(__name__)
