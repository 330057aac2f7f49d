"""torch dtypes as small objects over NumPy dtypes."""

from __future__ import annotations

from typing import Any

import numpy as np


class dtype:
    __slots__ = (
        "is_complex",
        "is_floating_point",
        "is_signed",
        "itemsize",
        "name",
        "np",
    )

    def __init__(self, name: str, np_dtype: Any) -> None:
        self.name = name
        self.np = np.dtype(np_dtype) if np_dtype is not None else None
        kind = self.np.kind if self.np is not None else "f"
        self.is_floating_point = kind == "f"
        self.is_complex = kind == "c"
        self.is_signed = kind in "fic"
        self.itemsize = self.np.itemsize if self.np is not None else 2

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def to_real(self) -> dtype:
        return self


float32 = dtype("float32", np.float32)
float64 = dtype("float64", np.float64)
float16 = dtype("float16", np.float16)
bfloat16 = dtype("bfloat16", None)
int64 = dtype("int64", np.int64)
int32 = dtype("int32", np.int32)
int16 = dtype("int16", np.int16)
int8 = dtype("int8", np.int8)
uint8 = dtype("uint8", np.uint8)
bool_ = dtype("bool", np.bool_)
complex64 = dtype("complex64", np.complex64)
complex128 = dtype("complex128", np.complex128)

ALL = [
    float32,
    float64,
    float16,
    int64,
    int32,
    int16,
    int8,
    uint8,
    bool_,
    complex64,
    complex128,
]
_FROM_NP = {d.np: d for d in ALL}
ALIASES = {
    "float": float32,
    "double": float64,
    "half": float16,
    "long": int64,
    "int": int32,
    "short": int16,
    "bool": bool_,
    "cfloat": complex64,
    "cdouble": complex128,
}
DEFAULT = [float32]


def from_numpy_dtype(np_dtype: Any) -> dtype:
    d = _FROM_NP.get(np.dtype(np_dtype))
    if d is None:
        raise NotImplementedError(
            f"shims: numpy dtype {np_dtype} has no torch dtype here"
        )
    return d


def to_numpy_dtype(d: Any) -> np.dtype:
    """Accept torch dtypes, Python types and NumPy dtypes."""
    if isinstance(d, dtype):
        if d.np is None:
            raise NotImplementedError(f"shims: torch.{d.name} is not implemented")
        return d.np
    if d is float:
        return DEFAULT[0].np
    if d is int:
        return np.dtype(np.int64)
    if d is bool:
        return np.dtype(np.bool_)
    return np.dtype(d)
