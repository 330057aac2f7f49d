"""``mindspore.experimental.optim``: torch-style optimizers (``lr=``, param groups), called with grads.

The update rules are torch's: SGD keeps a momentum buffer that starts as the first gradient; Adam
adds ``eps`` after the bias-corrected square root; AdamW first multiplies the weights by
``1 - lr * weight_decay``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import core
from ..._missing import missing, module_getattr
from ..._tensor import Parameter, ParameterTuple, Tensor


def _array(value: Any) -> np.ndarray:
    return np.asarray(value._data if isinstance(value, core.Tensor) else value)


class Optimizer:
    def __init__(self, params: Any, defaults: dict) -> None:
        self.defaults = dict(defaults)
        items = list(params)
        if not items:
            raise ValueError("optimizer got an empty parameter list")
        groups = items if isinstance(items[0], dict) else [{"params": items}]
        self.param_groups: list[dict] = []
        self.initial_lrs: list[float] = []
        self.lrs: list[Parameter] = []
        for group in groups:
            self.add_param_group(dict(group))
        self.state: dict[int, dict] = {}

    def add_param_group(self, group: dict) -> None:
        group["params"] = (
            list(group["params"])
            if not isinstance(group["params"], core.Tensor)
            else [group["params"]]
        )
        for key, value in self.defaults.items():
            group.setdefault(key, value)
        index = len(self.param_groups)
        self.initial_lrs.append(float(_array(group["lr"])))
        group["lr"] = Parameter(
            Tensor(np.float32(float(_array(group["lr"])))),
            name=f"learning_rate_group_{index}",
        )
        self.lrs.append(group["lr"])
        group.setdefault("grad_centralization", False)
        self.param_groups.append(group)

    @property
    def parameters(self) -> ParameterTuple:
        return ParameterTuple(p for group in self.param_groups for p in group["params"])

    def zero_grad(self) -> None:
        pass

    def __call__(self, grads: Sequence[Any]) -> tuple:
        return self.construct(grads)

    def construct(self, grads: Sequence[Any]) -> tuple:
        grads = list(grads)
        i = 0
        for index, group in enumerate(self.param_groups):
            # As in MindSpore: a Python float written into the group is used; any other value
            # (a Tensor from `group["lr"] *= 0.5`) is ignored for the group's own lr Parameter.
            value = group["lr"]
            lr = np.float32(
                value if isinstance(value, float) else _array(self.lrs[index])
            )
            for p in group["params"]:
                g = _array(grads[i]).astype(_array(p).dtype, copy=True)
                i += 1
                if group.get("maximize"):
                    g = -g
                self._update(group, self.state.setdefault(id(p), {}), _array(p), g, lr)
        return tuple(True for _ in range(i))

    def _update(
        self,
        group: dict,
        state: dict,
        param: np.ndarray,
        grad: np.ndarray,
        lr: np.float32,
    ) -> None:
        raise NotImplementedError

    def state_dict(self) -> dict:
        raise missing("mindspore.experimental.optim.Optimizer.state_dict")


class SGD(Optimizer):
    def __init__(
        self,
        params: Any,
        lr: Any,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0.0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
    ) -> None:
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(
            params,
            {
                "lr": lr,
                "momentum": momentum,
                "dampening": dampening,
                "weight_decay": weight_decay,
                "nesterov": nesterov,
                "maximize": maximize,
            },
        )

    def _update(
        self,
        group: dict,
        state: dict,
        param: np.ndarray,
        grad: np.ndarray,
        lr: np.float32,
    ) -> None:
        wd, momentum = np.float32(group["weight_decay"]), np.float32(group["momentum"])
        if wd:
            grad = grad + wd * param
        if momentum:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = grad.copy()
            else:
                buf *= momentum
                buf += (np.float32(1) - np.float32(group["dampening"])) * grad
            grad = grad + momentum * buf if group["nesterov"] else buf
        param -= lr * grad


class Adam(Optimizer):
    decoupled = False

    def __init__(
        self,
        params: Any,
        lr: Any = 1e-3,
        betas: Any = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
    ) -> None:
        super().__init__(
            params,
            {
                "lr": lr,
                "betas": tuple(betas),
                "eps": eps,
                "weight_decay": weight_decay,
                "amsgrad": amsgrad,
                "maximize": maximize,
            },
        )

    def _update(
        self,
        group: dict,
        state: dict,
        param: np.ndarray,
        grad: np.ndarray,
        lr: np.float32,
    ) -> None:
        beta1, beta2 = (np.float32(b) for b in group["betas"])
        wd, eps, one = (
            np.float32(group["weight_decay"]),
            np.float32(group["eps"]),
            np.float32(1),
        )
        if self.decoupled:
            param *= one - lr * wd
        elif wd:
            grad = grad + wd * param
        if not state:
            state["step"] = 0
            state["exp_avg"] = np.zeros_like(param)
            state["exp_avg_sq"] = np.zeros_like(param)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = np.zeros_like(param)
        state["step"] += 1
        step = state["step"]
        m, v = state["exp_avg"], state["exp_avg_sq"]
        m *= beta1
        m += (one - beta1) * grad
        v *= beta2
        v += (one - beta2) * grad * grad
        bias1 = one - beta1**step
        bias2 = one - beta2**step
        if group["amsgrad"]:
            np.maximum(state["max_exp_avg_sq"], v, out=state["max_exp_avg_sq"])
            v = state["max_exp_avg_sq"]
        denom = np.sqrt(v) / np.float32(math.sqrt(bias2)) + eps
        param -= (lr / bias1) * m / denom


class AdamW(Adam):
    decoupled = True

    def __init__(
        self,
        params: Any,
        lr: Any = 1e-3,
        betas: Any = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
    ) -> None:
        super().__init__(
            params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize
        )


from . import lr_scheduler  # noqa: F401

__getattr__ = module_getattr(__name__)
