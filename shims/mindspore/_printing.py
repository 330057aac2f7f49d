"""Text forms of MindSpore tensors, as MindSpore 2.10 prints them.

``str(t)`` is NumPy's ``str`` of the data. ``repr(t)`` follows MindSpore's C++ formatter: scalars use
the C++ stream default (``%g``), array floats a fixed width in scientific notation (float16: width 11,
precision 4; others: width 15, precision 8), bools a width of 5, other numbers the widest printed
element. A 1-D row breaks every 12 floats or bools or 24 integers; a dimension longer than 6 (a
1-D tensor longer than 1000) shows its first and last 3 entries around ``...``.

The C runtime decides how many exponent digits appear: glibc prints at least 2 (``4.00000000e+00``),
the Windows runtime at least 3 (``4.00000000e+000``), which is what the migration guide's printed
tables show. ``TORCH2MS_MS_EXPONENT_DIGITS=3`` selects the latter.
"""

from __future__ import annotations

import math
import os

import numpy as np

_THRESHOLD = 6
_HALF = _THRESHOLD // 2
_THRESHOLD_1D = 1000


def exponent_digits() -> int:
    return int(os.environ.get("TORCH2MS_MS_EXPONENT_DIGITS", "2"))


def _c_float(value: float, spec: str) -> str:
    """Format like a glibc/MSVC stream: ``nan`` keeps its sign, exponents have a minimum width."""
    if math.isnan(value):
        return "-nan" if math.copysign(1.0, value) < 0 else "nan"
    if math.isinf(value):
        return "-inf" if value < 0 else "inf"
    text = spec % value
    digits = exponent_digits()
    if digits > 2 and "e" in text:
        mantissa, exponent = text.split("e")
        sign, number = exponent[0], exponent[1:]
        text = f"{mantissa}e{sign}{number.zfill(digits)}"
    return text


def _scalar_text(value, kind: str) -> str:
    if kind == "b":
        return "True" if value else "False"
    if kind == "f":
        return _c_float(float(value), "%g")
    return str(int(value))


def _printed_indices(shape: tuple[int, ...]) -> tuple[list[int], ...]:
    ndim = len(shape)
    picks = []
    for depth, size in enumerate(shape):
        bottom = depth == ndim - 1
        limit = (_THRESHOLD_1D if ndim == 1 else _THRESHOLD) if bottom else _THRESHOLD
        if size > limit:
            picks.append(list(range(_HALF)) + list(range(size - _HALF, size)))
        else:
            picks.append(list(range(size)))
    return tuple(picks)


def _element_formatter(array: np.ndarray, kind: str):
    if kind == "f":
        if array.dtype == np.float16:
            width, spec = 11, "%.4e"
        else:
            width, spec = 15, "%.8e"
        return lambda v: _c_float(float(v), spec).rjust(width)
    if kind == "b":
        return lambda v: ("True" if v else "False").rjust(5)
    shown = array[np.ix_(*_printed_indices(array.shape))]
    width = max((len(str(int(v))) for v in shown.flat), default=0)
    return lambda v: str(int(v)).rjust(width)


def _kind(array: np.ndarray) -> str:
    if array.dtype == np.bool_:
        return "b"
    if array.dtype.kind in "fc":
        return "f"
    return "i"


def _render_row(out: list[str], row: np.ndarray, ndim: int, fmt, kind: str) -> None:
    size = row.shape[0]
    line_every = 24 if kind == "i" else 12
    summarise = size > (_THRESHOLD_1D if ndim == 1 else _THRESHOLD)

    def emit(start: int, end: int) -> None:
        for i in range(start, end):
            out.append(fmt(row[i]))
            if i != end - 1:
                out.append(", ")
            if ndim == 1 and (i - start + 1) % line_every == 0:
                out.append("\n ")

    if summarise:
        emit(0, _HALF)
        out.append(" ... ")
        emit(size - _HALF, size)
    else:
        emit(0, size)


def _render(
    out: list[str], array: np.ndarray, depth: int, fmt, kind: str, ndim: int
) -> None:
    out.append("[")
    if depth == ndim - 1:
        _render_row(out, array, ndim, fmt, kind)
    else:
        size = array.shape[0]
        indent = " " * (depth + 1)
        for i in range(min(_HALF, size)):
            if i > 0:
                out.append(",\n" + indent)
            _render(out, array[i], depth + 1, fmt, kind, ndim)
        if size > _THRESHOLD:
            out.append(",\n" + indent + "...")
        if size > _HALF:
            count = min(size - _HALF, _HALF)
            for i in range(count):
                if i != 0 or size <= _THRESHOLD:
                    out.append(",")
                out.append("\n" + indent)
                _render(out, array[size - count + i], depth + 1, fmt, kind, ndim)
    out.append("]")


def value_text(array: np.ndarray) -> str:
    """The ``value=`` part of a tensor's repr."""
    kind = _kind(array)
    if array.ndim == 0:
        return _scalar_text(array.item(), kind)
    if array.size == 0:
        return ""
    out: list[str] = []
    _render(out, array, 0, _element_formatter(array, kind), kind, array.ndim)
    return "".join(out)


def tensor_repr(array: np.ndarray, dtype_name: str) -> str:
    shape = "[" + ", ".join(str(d) for d in array.shape) + "]"
    gap = "\n" if array.ndim > 1 else " "
    return f"Tensor(shape={shape}, dtype={dtype_name}, value={gap}{value_text(array)})"


def tensor_str(array: np.ndarray) -> str:
    return str(array)
