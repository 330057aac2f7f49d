"""Companion entries in library/foreach.py: `torch._foreach_<op>` for the ops of one tensor.

TM407 writes a list comprehension or an `ops.assign` loop where the call stands as a statement or
its op maps as it is; these entries serve the other uses (`result = torch._foreach_exp_(xs)`,
`self=` keywords, ops whose element-wise form has no one-line mapping such as `frac`).
"""

from __future__ import annotations

_UNARY = (
    "abs",
    "acos",
    "asin",
    "atan",
    "ceil",
    "cos",
    "cosh",
    "erf",
    "erfc",
    "exp",
    "expm1",
    "floor",
    "frac",
    "lgamma",
    "log",
    "log10",
    "log1p",
    "log2",
    "reciprocal",
    "round",
    "rsqrt",
    "sigmoid",
    "sin",
    "sinh",
    "tan",
    "tanh",
    "trunc",
)

ENTRIES: dict[str, str] = {}
for _op in _UNARY:
    ENTRIES[f"torch._foreach_{_op}"] = f"foreach_{_op}"
    ENTRIES[f"torch._foreach_{_op}_"] = f"foreach_{_op}_"
for _op in ("neg", "sign"):
    ENTRIES[f"torch._foreach_{_op}_"] = f"foreach_{_op}_"
