"""``mindspore.common.initializer``: initialisers drawing from the shared engine generator."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ... import core
from .. import _dtype
from .._missing import missing
from .._tensor import Tensor


class Initializer:
    """Fills an array of a given shape; ``initializer(init, shape, dtype)`` applies one."""

    def __init__(self, **kwargs: Any) -> None:
        self._kwargs = kwargs

    def fill(self, shape: tuple) -> np.ndarray:
        raise NotImplementedError

    def __call__(self, arr: np.ndarray) -> None:
        arr[...] = self.fill(arr.shape)


class Zero(Initializer):
    def fill(self, shape: tuple) -> np.ndarray:
        return np.zeros(shape, np.float32)


class One(Initializer):
    def fill(self, shape: tuple) -> np.ndarray:
        return np.ones(shape, np.float32)


class Constant(Initializer):
    def __init__(self, value: Any) -> None:
        super().__init__(value=value)
        self.value = value

    def fill(self, shape: tuple) -> np.ndarray:
        return np.full(shape, self.value, np.float32)


class Normal(Initializer):
    def __init__(self, sigma: float = 0.01, mean: float = 0.0) -> None:
        super().__init__(sigma=sigma, mean=mean)
        self.sigma, self.mean = sigma, mean

    def fill(self, shape: tuple) -> np.ndarray:
        return core.rng_normal(shape, self.mean, self.sigma)


class TruncatedNormal(Initializer):
    def __init__(
        self, sigma: float = 0.01, mean: float = 0.0, a: float = -2.0, b: float = 2.0
    ) -> None:
        super().__init__(sigma=sigma)
        self.sigma, self.mean, self.a, self.b = sigma, mean, a, b

    def fill(self, shape: tuple) -> np.ndarray:
        out = core.rng_normal(shape, 0.0, 1.0)
        bad = (out < self.a) | (out > self.b)
        while bad.any():
            out[bad] = core.rng_normal(int(bad.sum()), 0.0, 1.0)
            bad = (out < self.a) | (out > self.b)
        return (out * self.sigma + self.mean).astype(np.float32)


class Uniform(Initializer):
    def __init__(self, scale: float = 0.07) -> None:
        super().__init__(scale=scale)
        self.scale = scale

    def fill(self, shape: tuple) -> np.ndarray:
        return core.init_uniform(shape, self.scale)


def _fan(shape: tuple, mode: str) -> int:
    fan_in, fan_out = core.fan_in_out(shape)
    return fan_in if mode == "fan_in" else fan_out


class HeUniform(Initializer):
    def __init__(
        self,
        negative_slope: float = 0,
        mode: str = "fan_in",
        nonlinearity: str = "leaky_relu",
    ) -> None:
        super().__init__(
            negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity
        )
        self.negative_slope, self.mode, self.nonlinearity = (
            negative_slope,
            mode,
            nonlinearity,
        )

    def fill(self, shape: tuple) -> np.ndarray:
        return core.init_kaiming_uniform(
            shape, self.negative_slope, _fan(shape, self.mode), self.nonlinearity
        )


class HeNormal(HeUniform):
    def fill(self, shape: tuple) -> np.ndarray:
        return core.init_kaiming_normal(
            shape, self.negative_slope, _fan(shape, self.mode), self.nonlinearity
        )


class XavierUniform(Initializer):
    def __init__(self, gain: float = 1) -> None:
        super().__init__(gain=gain)
        self.gain = gain

    def fill(self, shape: tuple) -> np.ndarray:
        return core.init_xavier_uniform(shape, self.gain)


class XavierNormal(XavierUniform):
    def fill(self, shape: tuple) -> np.ndarray:
        return core.init_xavier_normal(shape, self.gain)


_BY_NAME = {
    "zeros": Zero,
    "zero": Zero,
    "ones": One,
    "one": One,
    "normal": Normal,
    "truncatednormal": TruncatedNormal,
    "uniform": Uniform,
    "heuniform": HeUniform,
    "he_uniform": HeUniform,
    "henormal": HeNormal,
    "he_normal": HeNormal,
    "xavieruniform": XavierUniform,
    "xavier_uniform": XavierUniform,
    "xaviernormal": XavierNormal,
    "xavier_normal": XavierNormal,
}


def initializer(init: Any, shape: Any = None, dtype: Any = _dtype.float32) -> Tensor:
    """A tensor of ``shape`` filled by ``init`` (a name, an Initializer, a number or a tensor)."""
    np_dtype = _dtype.to_numpy(dtype)
    if isinstance(init, core.Tensor):
        if shape is not None and tuple(init.shape) != tuple(
            shape if not isinstance(shape, int) else (shape,)
        ):
            raise ValueError(
                f"The shape of the tensor {tuple(init.shape)} is not equal to the shape {tuple(shape)}."
            )
        return Tensor(np.array(init._data, np_dtype))
    if isinstance(init, np.ndarray):
        return Tensor(init.astype(np_dtype))
    shape = (
        () if shape is None else ((shape,) if isinstance(shape, int) else tuple(shape))
    )
    if isinstance(init, (bool, numbers.Number)):
        filler: Initializer = Constant(init)
    elif isinstance(init, str):
        try:
            filler = _BY_NAME[init.lower()]()
        except KeyError:
            raise missing(f"mindspore initializer {init!r}") from None
    elif isinstance(init, Initializer):
        filler = init
    elif isinstance(init, type) and issubclass(init, Initializer):
        filler = init()
    else:
        raise TypeError(f"Unsupported init type {type(init).__name__}")
    return Tensor(np.asarray(filler.fill(shape)).astype(np_dtype))
