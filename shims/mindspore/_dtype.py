"""MindSpore dtype objects (``mindspore.float32`` ...), each tied to a NumPy dtype."""

from __future__ import annotations

from typing import Any

import numpy as np


class DType:
    """``str`` is MindSpore's type name (``Float32``), ``repr`` the attribute path (``mindspore.float32``)."""

    __slots__ = ("attr", "name", "np_dtype")

    def __init__(self, name: str, attr: str, np_dtype: Any) -> None:
        self.name = name
        self.attr = attr
        self.np_dtype = np.dtype(np_dtype)

    @property
    def dtype(self) -> np.dtype:
        # Lets NumPy accept a DType wherever it takes a dtype (np.dtype(ms.float32), arr.astype(ms.int32)).
        return self.np_dtype

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"mindspore.{self.attr}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DType):
            return self.np_dtype == other.np_dtype
        return False

    def __hash__(self) -> int:
        return hash(self.np_dtype)

    def __reduce__(self):
        return (from_numpy, (self.np_dtype,))


float16 = DType("Float16", "float16", np.float16)
float32 = DType("Float32", "float32", np.float32)
float64 = DType("Float64", "float64", np.float64)
int8 = DType("Int8", "int8", np.int8)
int16 = DType("Int16", "int16", np.int16)
int32 = DType("Int32", "int32", np.int32)
int64 = DType("Int64", "int64", np.int64)
uint8 = DType("UInt8", "uint8", np.uint8)
uint16 = DType("UInt16", "uint16", np.uint16)
uint32 = DType("UInt32", "uint32", np.uint32)
uint64 = DType("UInt64", "uint64", np.uint64)
bool_ = DType("Bool", "bool", np.bool_)
complex64 = DType("Complex64", "complex64", np.complex64)
complex128 = DType("Complex128", "complex128", np.complex128)
half, single, double = float16, float32, float64
short, intc, int_, long = int16, int32, int32, int64

ALL = (
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
    bool_,
    complex64,
    complex128,
)
_BY_NUMPY = {d.np_dtype: d for d in ALL}
float_type = (float16, float32, float64)
int_type = (int8, int16, int32, int64)
uint_type = (uint8, uint16, uint32, uint64)
number_type = int_type + uint_type + float_type


def from_numpy(np_dtype: Any) -> DType:
    try:
        return _BY_NUMPY[np.dtype(np_dtype)]
    except KeyError:
        raise NotImplementedError(
            f"shims: mindspore has no dtype for NumPy {np.dtype(np_dtype)}"
        ) from None


def to_numpy(dtype: Any) -> np.dtype:
    """A NumPy dtype from a MindSpore dtype, NumPy dtype/type or Python type."""
    if isinstance(dtype, DType):
        return dtype.np_dtype
    if dtype is float:
        return np.dtype(np.float32)
    if dtype is int:
        return np.dtype(np.int64)
    if dtype is bool:
        return np.dtype(np.bool_)
    return np.dtype(dtype)


def dtype_to_nptype(dtype: DType) -> type:
    return to_numpy(dtype).type


def pytype_to_dtype(obj: Any) -> DType:
    return from_numpy(to_numpy(obj))
