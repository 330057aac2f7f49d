"""``mindspore.nn`` optimizers, called with a tuple of gradients in ``optimizer.parameters`` order.

Update rules follow MindSpore's kernels (float32 throughout):
- SGD: the first step sets ``accum = grad``; later ``accum = momentum * accum + (1 - dampening) * grad``;
  ``p -= lr * (grad + momentum * accum)`` with nesterov, else ``p -= lr * accum``.
- Momentum: ``accum = momentum * accum + grad``; ``p -= lr * accum``. MindSpore 2.10's CPU kernel
  ignores ``use_nesterov`` (measured), and so does this facade.
- Adam: ``lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t)``; ``p -= lr_t * m / (sqrt(v) + eps)``.
- AdamWeightDecay: no bias correction; ``p -= lr * (m / (sqrt(v) + eps) + weight_decay * p)``.
Weight decay (``grad + weight_decay * p``) skips parameters whose name contains 'beta' or 'gamma'
unless groups give their own ``weight_decay``; gradients are then divided by ``loss_scale``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import core
from .. import _dtype
from .._missing import missing
from .._tensor import Parameter, ParameterTuple, Tensor
from .cell import Cell


def _array(value: Any) -> np.ndarray:
    return np.asarray(value._data if isinstance(value, core.Tensor) else value)


def default_decay_filter(param: Parameter) -> bool:
    return "beta" not in param.name and "gamma" not in param.name


class LearningRateSchedule(Cell):
    """Base of learning-rate schedules: ``construct(global_step) -> lr``."""


class Optimizer(Cell):
    def __init__(
        self,
        learning_rate: Any,
        parameters: Any,
        weight_decay: float = 0.0,
        loss_scale: float = 1.0,
    ) -> None:
        super().__init__(auto_prefix=False)
        items = list(parameters)
        if not items:
            raise ValueError("Optimizer got an empty parameter list.")
        self.is_group = isinstance(items[0], dict)
        order = None
        params: list[Parameter] = []
        lrs: list[Any] = []
        decays: list[float] = []
        if self.is_group:
            for group in items:
                if "order_params" in group:
                    order = list(group["order_params"])
                    continue
                group_params = list(group["params"])
                params += group_params
                lrs += [group.get("lr", learning_rate)] * len(group_params)
                wd = group.get("weight_decay", weight_decay)
                decays += [float(wd)] * len(group_params)
        else:
            params = items
            lrs = [learning_rate] * len(params)
            decays = [
                float(weight_decay) if default_decay_filter(p) else 0.0 for p in params
            ]
        if order is not None:
            index = {id(p): i for i, p in enumerate(params)}
            positions = [index[id(p)] for p in order]
            params = [params[i] for i in positions]
            lrs = [lrs[i] for i in positions]
            decays = [decays[i] for i in positions]
        self.parameters = ParameterTuple(params)
        self._params_list = list(params)
        self._lrs = [self._schedule(lr) for lr in lrs]
        self._decays = decays
        self.weight_decay = float(weight_decay)
        self.loss_scale = float(loss_scale)
        self.step = 0
        self.global_step = Parameter(
            Tensor([0], _dtype.int32), name="global_step", requires_grad=False
        )
        if not self.is_group or all(lr is self._lrs[0] for lr in self._lrs):
            self.learning_rate = Parameter(
                Tensor(np.float32(self._lr_value(self._lrs[0], 0))),
                name="learning_rate",
            )
        self.dynamic_lr = any(not isinstance(lr, float) for lr in self._lrs)

    @staticmethod
    def _schedule(lr: Any) -> Any:
        if isinstance(lr, (int, float)):
            return float(lr)
        if isinstance(lr, core.Tensor) and lr._data.ndim == 0:
            return float(lr._data)
        if isinstance(lr, LearningRateSchedule):
            return lr
        if isinstance(lr, (list, tuple, np.ndarray, core.Tensor)):
            return [
                float(v)
                for v in np.asarray(
                    _array(lr) if isinstance(lr, core.Tensor) else lr
                ).reshape(-1)
            ]
        raise TypeError(f"Unsupported learning_rate {type(lr).__name__}")

    @staticmethod
    def _lr_value(lr: Any, step: int) -> float:
        if isinstance(lr, float):
            return lr
        if isinstance(lr, list):
            if step >= len(lr):
                raise RuntimeError(
                    f"The dynamic learning rate has {len(lr)} values; step {step} is out of range."
                )
            return lr[step]
        return float(_array(lr(Tensor(np.int32(step)))))

    def get_lr(self) -> Any:
        if not self.dynamic_lr and "learning_rate" in self._params:
            return self.learning_rate
        values = [np.float32(self._lr_value(lr, self.step)) for lr in self._lrs]
        if self.is_group:
            return tuple(Tensor(v) for v in values)
        return Tensor(values[0])

    def get_lr_parameter(self, param: Any) -> Any:
        return Tensor(
            np.float32(
                self._lr_value(self._lrs[self._params_list.index(param)], self.step)
            )
        )

    def _prepared(self, gradients: Sequence[Any]) -> list[np.ndarray]:
        grads = []
        if len(gradients) != len(self._params_list):
            raise ValueError(
                f"The optimizer got {len(gradients)} gradients for {len(self._params_list)} parameters."
            )
        for p, g, wd in zip(self._params_list, gradients, self._decays):
            g = _array(g).astype(
                np.float32 if p._data.dtype == np.float32 else p._data.dtype, copy=True
            )
            if wd and self._applies_decay_to_grad():
                g += np.float32(wd) * _array(p)
            if self.loss_scale != 1.0:
                g /= np.float32(self.loss_scale)
            grads.append(g)
        return grads

    def _applies_decay_to_grad(self) -> bool:
        return True

    def construct(self, gradients: Sequence[Any]) -> tuple:
        grads = self._prepared(gradients)
        lrs = [np.float32(self._lr_value(lr, self.step)) for lr in self._lrs]
        self.step += 1
        self.global_step._data[...] = self.step
        for i, (p, g, lr) in enumerate(zip(self._params_list, grads, lrs)):
            self._update(i, _array(p), g, lr)
        return tuple(True for _ in self._params_list)

    def __call__(self, gradients: Sequence[Any]) -> tuple:
        with core.grad_mode(False):
            return self.construct(gradients)

    def _update(
        self, index: int, param: np.ndarray, grad: np.ndarray, lr: np.float32
    ) -> None:
        raise NotImplementedError


class SGD(Optimizer):
    def __init__(
        self,
        params: Any,
        learning_rate: Any = 0.1,
        momentum: float = 0.0,
        dampening: float = 0.0,
        weight_decay: float = 0.0,
        nesterov: bool = False,
        loss_scale: float = 1.0,
    ) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if nesterov and (momentum <= 0.0 or dampening != 0.0):
            raise ValueError(
                "For 'SGD', if 'nesterov' is true, 'momentum' must be > 0.0 and 'dampening' must equal to 0.0."
            )
        self.momentum, self.dampening, self.nesterov = (
            np.float32(momentum),
            np.float32(dampening),
            nesterov,
        )
        self.accum = [np.zeros_like(_array(p)) for p in self._params_list]
        self.stat = [True for _ in self._params_list]

    def _update(
        self, i: int, param: np.ndarray, grad: np.ndarray, lr: np.float32
    ) -> None:
        if self.momentum > 0:
            accum = self.accum[i]
            if self.stat[i]:
                accum[...] = grad
                self.stat[i] = False
            else:
                accum *= self.momentum
                accum += (np.float32(1) - self.dampening) * grad
            step = grad + self.momentum * accum if self.nesterov else accum
            param -= lr * step
        else:
            param -= lr * grad


class Momentum(Optimizer):
    def __init__(
        self,
        params: Any,
        learning_rate: Any,
        momentum: float,
        weight_decay: float = 0.0,
        loss_scale: float = 1.0,
        use_nesterov: bool = False,
    ) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.momentum, self.use_nesterov = np.float32(momentum), use_nesterov
        self.moments = [np.zeros_like(_array(p)) for p in self._params_list]

    def _update(
        self, i: int, param: np.ndarray, grad: np.ndarray, lr: np.float32
    ) -> None:
        accum = self.moments[i]
        accum *= self.momentum
        accum += grad
        param -= accum * lr


class Adam(Optimizer):
    def __init__(
        self,
        params: Any,
        learning_rate: Any = 1e-3,
        beta1: float = 0.9,
        beta2: float = 0.999,
        eps: float = 1e-8,
        use_locking: bool = False,
        use_nesterov: bool = False,
        weight_decay: float = 0.0,
        loss_scale: float = 1.0,
        use_amsgrad: bool = False,
        **kwargs: Any,
    ) -> None:
        if use_amsgrad:
            raise missing("mindspore.nn.Adam(use_amsgrad=True)")
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.beta1, self.beta2, self.eps = (
            np.float32(beta1),
            np.float32(beta2),
            np.float32(eps),
        )
        self.use_nesterov = use_nesterov
        self.moment1 = [np.zeros_like(_array(p)) for p in self._params_list]
        self.moment2 = [np.zeros_like(_array(p)) for p in self._params_list]
        self.beta1_power = np.float32(1.0)
        self.beta2_power = np.float32(1.0)

    def construct(self, gradients: Sequence[Any]) -> tuple:
        self.beta1_power = np.float32(self.beta1_power * self.beta1)
        self.beta2_power = np.float32(self.beta2_power * self.beta2)
        return super().construct(gradients)

    def _update(
        self, i: int, param: np.ndarray, grad: np.ndarray, lr: np.float32
    ) -> None:
        one = np.float32(1)
        lr_t = lr * np.sqrt(one - self.beta2_power) / (one - self.beta1_power)
        m, v = self.moment1[i], self.moment2[i]
        m += (one - self.beta1) * (grad - m)
        v += (one - self.beta2) * (grad * grad - v)
        if self.use_nesterov:
            param -= (
                lr_t
                * (m * self.beta1 + (one - self.beta1) * grad)
                / (np.sqrt(v) + self.eps)
            )
        else:
            param -= lr_t * m / (np.sqrt(v) + self.eps)


class AdamWeightDecay(Optimizer):
    def __init__(
        self,
        params: Any,
        learning_rate: Any = 1e-3,
        beta1: float = 0.9,
        beta2: float = 0.999,
        eps: float = 1e-6,
        weight_decay: float = 0.0,
    ) -> None:
        super().__init__(learning_rate, params, weight_decay)
        self.beta1, self.beta2, self.eps = (
            np.float32(beta1),
            np.float32(beta2),
            np.float32(eps),
        )
        self.moments1 = [np.zeros_like(_array(p)) for p in self._params_list]
        self.moments2 = [np.zeros_like(_array(p)) for p in self._params_list]

    def _applies_decay_to_grad(self) -> bool:
        return False

    def _update(
        self, i: int, param: np.ndarray, grad: np.ndarray, lr: np.float32
    ) -> None:
        one = np.float32(1)
        m, v = self.moments1[i], self.moments2[i]
        m[...] = self.beta1 * m + (one - self.beta1) * grad
        v[...] = self.beta2 * v + (one - self.beta2) * grad * grad
        update = m / (np.sqrt(v) + self.eps)
        wd = self._decays[i]
        if wd:
            update = update + np.float32(wd) * param
        param -= lr * update
