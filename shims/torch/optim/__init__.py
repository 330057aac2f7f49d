"""torch.optim: SGD, Adam, AdamW with torch's single-tensor update rules, on raw arrays."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _tensor as T
from . import lr_scheduler  # noqa: F401

_required = object()
# NumPy 1.x: setting the error mask directly costs two C calls, np.errstate about ten times more.
_geterrobj = getattr(np, "geterrobj", None)
_seterrobj = getattr(np, "seterrobj", None)


class Optimizer:
    def __init__(self, params: Any, defaults: dict) -> None:
        self.defaults = defaults
        self.state: dict = defaultdict(dict)
        self.param_groups: list[dict] = []
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)
        self._opt_called = False

    def add_param_group(self, param_group: dict) -> None:
        group = dict(param_group)
        params = group["params"]
        group["params"] = [params] if isinstance(params, T.Tensor) else list(params)
        for key, value in self.defaults.items():
            if value is _required and key not in group:
                raise ValueError(
                    f"parameter group didn't specify a value of required optimization parameter {key}"
                )
            group.setdefault(key, value)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        p.grad._data[...] = 0

    def step(self, closure: Callable | None = None) -> Any:
        loss = None
        if closure is not None:
            from .._grad_mode import enable_grad

            with enable_grad():
                loss = closure()
        self._opt_called = True
        # torch updates non-finite values silently; so does NumPy here.
        if _geterrobj is None:
            with np.errstate(all="ignore"):
                for group in self.param_groups:
                    self._update_group(group)
            return loss
        saved = _geterrobj()
        _seterrobj([saved[0], 0, saved[2]])
        try:
            for group in self.param_groups:
                self._update_group(group)
        finally:
            _seterrobj(saved)
        return loss

    def _update_group(self, group: dict) -> None:
        raise NotImplementedError

    def state_dict(self) -> dict:
        index = {}
        groups = []
        for g in self.param_groups:
            packed = {k: v for k, v in g.items() if k != "params"}
            ids = []
            for p in g["params"]:
                index.setdefault(id(p), len(index))
                ids.append(index[id(p)])
            packed["params"] = ids
            groups.append(packed)
        state = {}
        for g in self.param_groups:
            for p in g["params"]:
                if self.state.get(p):
                    state[index[id(p)]] = {
                        k: (T.wrap(v.copy()) if isinstance(v, np.ndarray) else v)
                        for k, v in self.state[p].items()
                    }
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        params = [p for g in self.param_groups for p in g["params"]]
        for g, saved in zip(self.param_groups, state_dict["param_groups"]):
            for k, v in saved.items():
                if k != "params":
                    g[k] = v
        self.state = defaultdict(dict)
        for i, st in state_dict["state"].items():
            self.state[params[int(i)]] = {
                k: (v._data.copy() if isinstance(v, T.Tensor) else v)
                for k, v in st.items()
            }

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, g in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for k in sorted(g):
                if k != "params":
                    lines.append(f"    {k}: {g[k]}")
        lines.append(")")
        return "\n".join(lines)


def _grad_array(p: T.Tensor, maximize: bool) -> np.ndarray | None:
    if p.grad is None:
        return None
    g = p.grad._data
    return -g if maximize else g


class SGD(Optimizer):
    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: Any = None,
        differentiable: bool = False,
        fused: Any = None,
    ) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)

    def _update_group(self, group: dict) -> None:
        lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
        weight_decay, nesterov = group["weight_decay"], group["nesterov"]
        maximize = group["maximize"]
        if not (momentum or weight_decay or maximize):
            # The lr scalar is made once per dtype, not once per parameter.
            dtype = scale = None
            for p in group["params"]:
                grad = p.grad
                if grad is not None:
                    data = p._data
                    if data.dtype is not dtype:
                        dtype = data.dtype
                        scale = dtype.type(lr)
                    data -= grad._data * scale
            return
        for p in group["params"]:
            grad = p.grad
            if grad is None:
                continue
            g = -grad._data if maximize else grad._data
            data = p._data
            dt = data.dtype.type
            if weight_decay != 0:
                g = g + data * dt(weight_decay)
            if momentum != 0:
                state = self.state[p]
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = state["momentum_buffer"] = np.array(g, copy=True)
                else:
                    buf *= dt(momentum)
                    buf += g * dt(1 - dampening) if dampening != 0 else g
                g = g + buf * dt(momentum) if nesterov else buf
            data -= g * dt(lr)


class Adam(Optimizer):
    _decoupled = False

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: Any = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: Any = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = {
            "lr": lr,
            "betas": tuple(betas),
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay or self._decoupled,
        }
        super().__init__(params, defaults)

    def _update_group(self, group: dict) -> None:
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        weight_decay, amsgrad = group["weight_decay"], group["amsgrad"]
        decoupled = group["decoupled_weight_decay"]
        for p in group["params"]:
            g = _grad_array(p, group["maximize"])
            if g is None:
                continue
            data = p._data
            dt = data.dtype.type
            state = self.state[p]
            if not state:
                state["step"] = 0.0
                state["exp_avg"] = np.zeros_like(data)
                state["exp_avg_sq"] = np.zeros_like(data)
                if amsgrad:
                    state["max_exp_avg_sq"] = np.zeros_like(data)
            state["step"] += 1.0
            step = state["step"]
            if weight_decay != 0:
                if decoupled:
                    data *= dt(1 - lr * weight_decay)
                else:
                    g = g + data * dt(weight_decay)
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            exp_avg += (g - exp_avg) * dt(1 - beta1)
            exp_avg_sq *= dt(beta2)
            exp_avg_sq += g * g * dt(1 - beta2)
            bias_correction1 = 1 - beta1**step
            bias_correction2 = 1 - beta2**step
            step_size = lr / bias_correction1
            bias_correction2_sqrt = math.sqrt(bias_correction2)
            if amsgrad:
                np.maximum(
                    state["max_exp_avg_sq"], exp_avg_sq, out=state["max_exp_avg_sq"]
                )
                denom = np.sqrt(state["max_exp_avg_sq"]) / dt(
                    bias_correction2_sqrt
                ) + dt(eps)
            else:
                denom = np.sqrt(exp_avg_sq) / dt(bias_correction2_sqrt) + dt(eps)
            data += dt(-step_size) * (exp_avg / denom)

    def state_dict(self) -> dict:
        out = super().state_dict()
        for st in out["state"].values():
            if "step" in st:
                st["step"] = T.wrap(np.array(st["step"], np.float32))
        return out

    def load_state_dict(self, state_dict: dict) -> None:
        super().load_state_dict(state_dict)
        for st in self.state.values():
            if "step" in st and not isinstance(st["step"], float):
                st["step"] = float(np.asarray(st["step"]))


class AdamW(Adam):
    _decoupled = True

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        **kwargs: Any,
    ) -> None:
        kwargs.pop("decoupled_weight_decay", None)
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            decoupled_weight_decay=True,
            **kwargs,
        )


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    raise NotImplementedError(f"shims: torch.optim.{name} is not implemented")
