"""torch.nn.init: in-place initialisers drawing from the shared generator."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import core as C
from .._tensor import Tensor

calculate_gain = C.calculate_gain


def _fill(tensor: Tensor, values: np.ndarray) -> Tensor:
    tensor._data[...] = values.astype(tensor._data.dtype, copy=False)
    return tensor


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    return C.fan_in_out(tuple(tensor.shape))


def _fan(tensor: Tensor, mode: str) -> int:
    fan_in, fan_out = C.fan_in_out(tuple(tensor.shape))
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(
            f"Mode {mode} not supported, please use one of fan_in, fan_out"
        )
    return fan_in if mode == "fan_in" else fan_out


def uniform_(
    tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None
) -> Tensor:
    return _fill(tensor, C.rng_uniform(tensor.shape, a, b, dtype=tensor._data.dtype))


def normal_(
    tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None
) -> Tensor:
    return _fill(
        tensor, C.rng_normal(tensor.shape, mean, std, dtype=tensor._data.dtype)
    )


def trunc_normal_(
    tensor: Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator: Any = None,
) -> Tensor:
    values = C.rng_normal(tensor.shape, mean, std, dtype=np.float64)
    bad = (values < a) | (values > b)
    while bad.any():
        values[bad] = C.rng_normal(int(bad.sum()), mean, std, dtype=np.float64)
        bad = (values < a) | (values > b)
    return _fill(tensor, values)


def constant_(tensor: Tensor, val: float) -> Tensor:
    tensor._data[...] = val
    return tensor


def zeros_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 0.0)


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def eye_(tensor: Tensor) -> Tensor:
    tensor._data[...] = np.eye(*tensor.shape)
    return tensor


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    return _fill(tensor, C.init_xavier_uniform(tuple(tensor.shape), gain))


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    return _fill(tensor, C.init_xavier_normal(tuple(tensor.shape), gain))


def kaiming_uniform_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Any = None,
) -> Tensor:
    return _fill(
        tensor,
        C.init_kaiming_uniform(
            tuple(tensor.shape), a, _fan(tensor, mode), nonlinearity
        ),
    )


def kaiming_normal_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Any = None,
) -> Tensor:
    return _fill(
        tensor,
        C.init_kaiming_normal(tuple(tensor.shape), a, _fan(tensor, mode), nonlinearity),
    )


def orthogonal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    rows = tensor.shape[0]
    cols = tensor._data.size // rows
    flat = C.rng_normal((rows, cols), dtype=np.float64)
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q *= np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return _fill(tensor, (gain * q).reshape(tensor.shape))


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    raise NotImplementedError(f"shims: torch.nn.init.{name} is not implemented")
