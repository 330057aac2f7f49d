"""torch.amp: GradScaler (enabled on CPU; disabled with a warning for CUDA on a CPU-only machine)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ... import core as C
from .._tensor import Tensor, wrap

_READY, _UNSCALED, _STEPPED = 0, 1, 2


class GradScaler:
    def __init__(
        self,
        device: str = "cuda",
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        self._device = device
        self._enabled = enabled
        if self._device == "cuda" and enabled:
            warnings.warn(
                "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                stacklevel=2,
            )
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise ValueError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise ValueError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale: np.ndarray | None = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = 0
            self._per_optimizer: dict = {}

    def is_enabled(self) -> bool:
        return self._enabled

    def _lazy_init(self) -> None:
        if self._scale is None:
            self._scale = np.array(self._init_scale, np.float32)
            self._growth_tracker = self._init_growth_tracker

    def _state(self, optimizer: Any) -> dict:
        return self._per_optimizer.setdefault(
            id(optimizer), {"stage": _READY, "found_inf": None}
        )

    def scale(self, outputs: Any) -> Any:
        if not self._enabled:
            return outputs
        self._lazy_init()
        if isinstance(outputs, C.Tensor):
            return C.mul(outputs, wrap(self._scale))
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def unscale_(self, optimizer: Any) -> None:
        if not self._enabled:
            return
        if self._scale is None:
            raise RuntimeError(
                "Attempted unscale_ but _scale is None.  This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
            )
        state = self._state(optimizer)
        if state["stage"] == _UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update()."
            )
        if state["stage"] == _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = np.float32(1.0 / np.float64(self._scale))
        found = False
        for group in optimizer.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = p.grad._data
                if not np.all(np.isfinite(g)):
                    found = True
                g *= inv_scale.astype(g.dtype)
        state["found_inf"] = found
        state["stage"] = _UNSCALED

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError(
                "Closure use is not currently supported if GradScaler is enabled."
            )
        state = self._state(optimizer)
        if state["stage"] == _STEPPED:
            raise RuntimeError(
                "step() has already been called since the last update()."
            )
        if state["stage"] == _READY:
            self.unscale_(optimizer)
        result = None
        if not state["found_inf"]:
            result = optimizer.step(*args, **kwargs)
        state["stage"] = _STEPPED
        return result

    def update(self, new_scale: Any = None) -> None:
        if not self._enabled:
            return
        self._lazy_init()
        if new_scale is not None:
            value = new_scale._data if isinstance(new_scale, Tensor) else new_scale
            self._scale = np.array(value, np.float32)
        else:
            found = any(
                s["found_inf"]
                for s in self._per_optimizer.values()
                if s["found_inf"] is not None
            )
            if found:
                self._scale = np.array(
                    self._scale * np.float32(self._backoff_factor), np.float32
                )
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    self._scale = np.array(
                        self._scale * np.float32(self._growth_factor), np.float32
                    )
                    self._growth_tracker = 0
        self._per_optimizer = {}

    def get_scale(self) -> float:
        if not self._enabled:
            return 1.0
        return float(self._init_scale) if self._scale is None else float(self._scale)

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def state_dict(self) -> dict:
        if not self._enabled:
            return {}
        return {
            "scale": self.get_scale(),
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._growth_tracker,
        }

    def load_state_dict(self, state_dict: dict) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved from a disabled instance of GradScaler."
            )
        self._init_scale = state_dict["scale"]
        self._scale = np.array(state_dict["scale"], np.float32)
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._growth_tracker = state_dict["_growth_tracker"]


class autocast:
    """Disabled for CUDA on this CPU-only build (as torch does); CPU bfloat16 autocast is not emulated."""

    def __init__(
        self,
        device_type: str = "cuda",
        dtype: Any = None,
        enabled: bool = True,
        cache_enabled: Any = None,
    ) -> None:
        self.device_type = device_type
        if enabled and device_type == "cuda":
            warnings.warn(
                "User provided device_type of 'cuda', but CUDA is not available. Disabling",
                stacklevel=2,
            )
        elif enabled:
            raise NotImplementedError(
                f"shims: torch.autocast(device_type={device_type!r}) is not implemented"
            )

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None

    def __call__(self, func: Any) -> Any:
        return func


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    raise NotImplementedError(f"shims: torch.amp.{name} is not implemented")
