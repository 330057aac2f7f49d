"""Shared random stream and layer initialisers (both facades draw from here in the same order)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

rng = np.random.Generator(np.random.PCG64(0))


def manual_seed(seed: int) -> None:
    """Reseed the one shared generator in place (so references to ``rng`` stay valid)."""
    rng.bit_generator.state = np.random.PCG64(int(seed)).state


def _shape(shape: Any) -> tuple:
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(n) for n in shape)


def rng_normal(
    shape: Any,
    mean: float = 0.0,
    std: float = 1.0,
    dtype: Any = np.float32,
    gen: Any = None,
) -> np.ndarray:
    out = (gen or rng).standard_normal(
        _shape(shape), dtype=np.float32 if np.dtype(dtype) == np.float32 else np.float64
    )
    if std != 1.0:
        out *= std
    if mean != 0.0:
        out += mean
    return out.astype(dtype, copy=False)


def rng_uniform(
    shape: Any,
    low: float = 0.0,
    high: float = 1.0,
    dtype: Any = np.float32,
    gen: Any = None,
) -> np.ndarray:
    out = (gen or rng).random(
        _shape(shape), dtype=np.float32 if np.dtype(dtype) == np.float32 else np.float64
    )
    if high - low != 1.0:
        out *= high - low
    if low != 0.0:
        out += low
    return out.astype(dtype, copy=False)


def rng_bernoulli(shape: Any, p: float, gen: Any = None) -> np.ndarray:
    """Boolean mask, True with probability ``p``."""
    return (gen or rng).random(_shape(shape), dtype=np.float32) < p


def rng_randint(low: int, high: int, shape: Any, gen: Any = None) -> np.ndarray:
    return (gen or rng).integers(low, high, _shape(shape), dtype=np.int64)


def rng_permutation(n: int, gen: Any = None) -> np.ndarray:
    return (gen or rng).permutation(int(n)).astype(np.int64)


def new_generator(seed: int) -> np.random.Generator:
    """A private stream (torch.Generator); every ``rng_*`` function takes one as ``gen=``."""
    return np.random.Generator(np.random.PCG64(int(seed)))


def fan_in_out(shape: tuple) -> tuple[int, int]:
    """torch's fan computation: dim 1 is fan-in, dim 0 fan-out, times the receptive field."""
    if len(shape) < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive = int(np.prod(shape[2:], dtype=np.int64)) if len(shape) > 2 else 1
    return shape[1] * receptive, shape[0] * receptive


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    if nonlinearity in (
        "linear",
        "conv1d",
        "conv2d",
        "conv3d",
        "sigmoid",
    ) or nonlinearity.startswith("conv"):
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def init_uniform(shape: Any, bound: float) -> np.ndarray:
    """U(-bound, bound), float32."""
    return rng_uniform(shape, -bound, bound)


def init_kaiming_uniform(
    shape: Any,
    a: float = 0.0,
    fan_in: int | None = None,
    nonlinearity: str = "leaky_relu",
) -> np.ndarray:
    shape = _shape(shape)
    if fan_in is None:
        fan_in = fan_in_out(shape)[0]
    gain = calculate_gain(nonlinearity, a)
    bound = math.sqrt(3.0) * gain / math.sqrt(fan_in) if fan_in else 0.0
    return init_uniform(shape, bound)


def init_kaiming_normal(
    shape: Any,
    a: float = 0.0,
    fan_in: int | None = None,
    nonlinearity: str = "leaky_relu",
) -> np.ndarray:
    shape = _shape(shape)
    if fan_in is None:
        fan_in = fan_in_out(shape)[0]
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan_in)
    return rng_normal(shape, 0.0, std)


def init_xavier_uniform(shape: Any, gain: float = 1.0) -> np.ndarray:
    fan_in, fan_out = fan_in_out(_shape(shape))
    return init_uniform(shape, gain * math.sqrt(6.0 / (fan_in + fan_out)))


def init_xavier_normal(shape: Any, gain: float = 1.0) -> np.ndarray:
    fan_in, fan_out = fan_in_out(_shape(shape))
    return rng_normal(shape, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)))


def init_normal(shape: Any, mean: float = 0.0, std: float = 1.0) -> np.ndarray:
    return rng_normal(shape, mean, std)


def init_linear(
    out_features: int, in_features: int, bias: bool = True
) -> tuple[np.ndarray, np.ndarray | None]:
    """torch.nn.Linear / mindspore.nn.Dense defaults: weight first, then bias."""
    weight = init_kaiming_uniform((out_features, in_features), a=math.sqrt(5))
    b = (
        init_uniform(
            (out_features,), 1.0 / math.sqrt(in_features) if in_features else 0.0
        )
        if bias
        else None
    )
    return weight, b


def init_conv(
    out_channels: int, in_per_group: int, kernel: tuple, bias: bool = True
) -> tuple[np.ndarray, np.ndarray | None]:
    """torch.nn.Conv2d defaults: kaiming_uniform(a=sqrt(5)) weight, then U(+-1/sqrt(fan_in)) bias."""
    shape = (out_channels, in_per_group) + tuple(kernel)
    weight = init_kaiming_uniform(shape, a=math.sqrt(5))
    fan_in = fan_in_out(shape)[0]
    b = (
        init_uniform((out_channels,), 1.0 / math.sqrt(fan_in) if fan_in else 0.0)
        if bias
        else None
    )
    return weight, b
