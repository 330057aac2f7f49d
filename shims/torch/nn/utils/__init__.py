"""torch.nn.utils: gradient clipping and parameter vectors."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from ..._tensor import Tensor, wrap


def _grads(parameters: Any) -> list:
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def clip_grad_norm_(
    parameters: Any,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: Any = None,
) -> Tensor:
    """torch semantics: one norm over all grads; scale by min(1, max_norm / (norm + 1e-6))."""
    grads = _grads(parameters)
    if not grads:
        return wrap(np.array(0.0, np.float32))
    norm_type = float(norm_type)
    if math.isinf(norm_type):
        norms = [np.abs(g._data).max() for g in grads]
        total = np.max(np.array(norms, np.float32))
    else:
        norms = [
            np.asarray(
                np.sum(np.abs(g._data.astype(np.float32)) ** norm_type), np.float32
            )
            ** (1.0 / norm_type)
            for g in grads
        ]
        total = np.sum(np.array(norms, np.float32) ** norm_type) ** (1.0 / norm_type)
    total = np.asarray(total, np.float32)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot be clipped."
        )
    coef = np.float32(max_norm) / (total + np.float32(1e-6))
    coef = np.minimum(coef, np.float32(1.0))
    for g in grads:
        g._data *= coef.astype(g._data.dtype)
    return wrap(np.asarray(total))


clip_grad_norm = clip_grad_norm_


def clip_grad_value_(parameters: Any, clip_value: float, foreach: Any = None) -> None:
    for g in _grads(parameters):
        np.clip(g._data, -clip_value, clip_value, out=g._data)


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    from ... import cat

    return cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    offset = 0
    for p in parameters:
        n = p._data.size
        p._data[...] = vec._data[offset : offset + n].reshape(p._data.shape)
        offset += n


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    raise NotImplementedError(f"shims: torch.nn.utils.{name} is not implemented")
