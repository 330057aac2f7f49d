"""Sample inputs for the mapping tests, described as short strings in the tables.

``"f32[2,3]"`` is a float32 array of normal draws; suffixes choose the range: ``+`` positive
(0.5..2), ``u`` inside (-0.9, 0.9), ``p`` probabilities (0.05..0.95), ``g`` above one
(1.1..3), ``s`` sorted along the last axis,
``n`` signs (-1 or 1). ``"i64[4]"`` holds integers
0..2, fit for indices (``i64+`` 1..2), ``"bool[2,3]"`` booleans, ``"dtype:float32"`` a dtype,
``"numpy:f64[2,3]"`` the NumPy array itself instead of a tensor made from it. Anything else is
passed through as it is; lists and tuples are walked.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np

_ARRAY = re.compile(r"^(f16|f32|f64|i32|i64|u8|bool|c64)([+upgsn]?)\[([0-9, ]*)\]$")


@dataclass(frozen=True)
class Array:
    values: np.ndarray


@dataclass(frozen=True)
class DType:
    name: str


def rng_for(name: str) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(name.encode()))


def build(spec: Any, rng: np.random.Generator) -> Any:
    """Turn a sample spec into NumPy arrays (wrapped in Array) and plain values."""
    if isinstance(spec, str):
        if spec.startswith("dtype:"):
            return DType(spec[len("dtype:") :])
        if spec.startswith("numpy:"):
            # A NumPy array given to both frameworks as it is (for `from_numpy`).
            return build(spec[len("numpy:") :], rng).values
        match = _ARRAY.match(spec)
        if match:
            return Array(_array(match.group(1), match.group(2), match.group(3), rng))
        return spec
    if isinstance(spec, list):
        return [build(item, rng) for item in spec]
    if isinstance(spec, tuple):
        return tuple(build(item, rng) for item in spec)
    if isinstance(spec, dict):
        return {key: build(value, rng) for key, value in spec.items()}
    return spec


def _array(
    code: str, range_code: str, dims: str, rng: np.random.Generator
) -> np.ndarray:
    shape = tuple(int(d) for d in dims.split(",") if d.strip())
    if code == "bool":
        return rng.random(shape) > 0.5
    if code in ("i32", "i64", "u8"):
        low = 1 if range_code == "+" else 0
        dtype = {"i32": np.int32, "i64": np.int64, "u8": np.uint8}[code]
        return rng.integers(low, 3, size=shape).astype(dtype)
    if range_code == "+":
        values = rng.uniform(0.5, 2.0, size=shape)
    elif range_code == "u":
        values = rng.uniform(-0.9, 0.9, size=shape)
    elif range_code == "n":
        values = np.where(rng.random(shape) > 0.5, 1.0, -1.0)
    elif range_code == "g":
        values = rng.uniform(1.1, 3.0, size=shape)
    elif range_code == "s":
        values = np.sort(rng.standard_normal(shape), axis=-1)
    elif range_code == "p":
        values = rng.uniform(0.05, 0.95, size=shape)
    else:
        values = rng.standard_normal(shape)
    if code == "c64":
        return (values + 1j * rng.standard_normal(shape)).astype(np.complex64)
    return values.astype(
        {"f16": np.float16, "f32": np.float32, "f64": np.float64}[code]
    )


def convert(value: Any, tensor: Any, dtype: Any) -> Any:
    """Replace Array/DType leaves with framework objects: tensor(ndarray), dtype(name)."""
    if isinstance(value, Array):
        return tensor(value.values.copy())
    if isinstance(value, DType):
        return dtype(value.name)
    if isinstance(value, list):
        return [convert(item, tensor, dtype) for item in value]
    if isinstance(value, tuple):
        return tuple(convert(item, tensor, dtype) for item in value)
    if isinstance(value, dict):
        return {key: convert(item, tensor, dtype) for key, item in value.items()}
    return value
