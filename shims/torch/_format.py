"""torch's printing of tensors: the same number formats, widths, wrapping and suffixes."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

OPTIONS = {
    "precision": 4,
    "threshold": 1000,
    "edgeitems": 3,
    "linewidth": 80,
    "sci_mode": None,
}


def set_printoptions(
    precision=None,
    threshold=None,
    edgeitems=None,
    linewidth=None,
    profile=None,
    sci_mode=None,
):
    if profile == "default":
        OPTIONS.update(precision=4, threshold=1000, edgeitems=3, linewidth=80)
    elif profile == "short":
        OPTIONS.update(precision=2, threshold=1000, edgeitems=2, linewidth=80)
    elif profile == "full":
        OPTIONS.update(precision=4, threshold=math.inf, edgeitems=3, linewidth=80)
    for key, value in (
        ("precision", precision),
        ("threshold", threshold),
        ("edgeitems", edgeitems),
        ("linewidth", linewidth),
    ):
        if value is not None:
            OPTIONS[key] = value
    OPTIONS["sci_mode"] = sci_mode


class _Formatter:
    def __init__(self, values: np.ndarray) -> None:
        self.floating = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        flat = values.reshape(-1)
        precision = OPTIONS["precision"]
        if not self.floating:
            for v in flat.tolist():
                self.width = max(self.width, len(str(v)))
            return
        finite = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if finite.size == 0:
            return
        absolute = np.abs(finite)
        lo, hi = absolute.min(), absolute.max()
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        forced = OPTIONS["sci_mode"]
        self.sci_mode = (
            (hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4)
            if forced is None
            else forced
        )
        for v in finite.tolist():
            if self.sci_mode:
                text = f"{v:.{precision}e}"
            elif self.int_mode:
                text = f"{v:.0f}."
            else:
                text = f"{v:.{precision}f}"
            self.width = max(self.width, len(text))

    def format(self, v: Any) -> str:
        precision = OPTIONS["precision"]
        if self.floating:
            if self.sci_mode:
                text = f"{v:{self.width}.{precision}e}"
            elif self.int_mode:
                text = f"{v:.0f}"
                if not (math.isinf(v) or math.isnan(v)):
                    text += "."
            else:
                text = f"{v:.{precision}f}"
        elif isinstance(v, bool):
            text = str(v)
        else:
            text = str(v)
        return " " * (self.width - len(text)) + text


def _summarized(a: np.ndarray) -> np.ndarray:
    e = OPTIONS["edgeitems"]
    if a.ndim == 0:
        return a
    if a.shape[0] > 2 * e:
        a = np.concatenate([a[:e], a[-e:]])
    if a.ndim == 1:
        return a
    return np.stack([_summarized(row) for row in a])


def _vector(a: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    e = OPTIONS["edgeitems"]
    per_line = max(1, math.floor((OPTIONS["linewidth"] - indent) / (fmt.width + 2)))
    values = a.tolist()
    if summarize and len(values) > 2 * e:
        items = (
            [fmt.format(v) for v in values[:e]]
            + [" ..."]
            + [fmt.format(v) for v in values[-e:]]
        )
    else:
        items = [fmt.format(v) for v in values]
    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(a: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    if a.ndim == 0:
        return fmt.format(a.item())
    if a.ndim == 1:
        return _vector(a, indent, summarize, fmt)
    e = OPTIONS["edgeitems"]
    if summarize and a.shape[0] > 2 * e:
        parts = [_nested(a[i], indent + 1, summarize, fmt) for i in range(e)] + ["..."]
        parts += [
            _nested(a[i], indent + 1, summarize, fmt)
            for i in range(a.shape[0] - e, a.shape[0])
        ]
    else:
        parts = [_nested(a[i], indent + 1, summarize, fmt) for i in range(a.shape[0])]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def tensor_body(a: np.ndarray, indent: int) -> str:
    if a.size == 0:
        return "[]"
    summarize = a.size > OPTIONS["threshold"]
    fmt = _Formatter(_summarized(a) if summarize else a)
    return _nested(a, indent, summarize, fmt)


def _add_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    parts = [text]
    last = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last + len(suffix) + 2 > OPTIONS["linewidth"]:
            parts.append(",\n" + " " * indent + suffix)
            last = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def tensor_repr(
    a: np.ndarray,
    dtype_name: str,
    default_dtype: bool,
    grad_fn: str | None,
    requires_grad: bool,
    prefix: str = "tensor(",
) -> str:
    indent = len(prefix)
    suffixes = []
    if a.size == 0:
        if a.ndim != 1:
            suffixes.append(f"size={tuple(a.shape)}")
        if dtype_name != "torch.float32":
            suffixes.append(f"dtype={dtype_name}")
        body = "[]"
    else:
        if not default_dtype:
            suffixes.append(f"dtype={dtype_name}")
        body = tensor_body(a, indent)
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)
