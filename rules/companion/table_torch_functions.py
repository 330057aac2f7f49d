"""Companion entries in library/torch_functions.py: torch qualified name -> entry name.

The API table's row for some of these refuses the arguments MindSpore's op cannot take
(`alpha=`, `decimals=`, `dtype=`, a `diagonal`); the refused call comes here with torch's own
arguments. The others have no MindSpore op of that name.
"""

from __future__ import annotations

_SAME_NAME = (
    "frombuffer",
    "cartesian_prod",
    "tensordot",
    "can_cast",
    "nanmedian",
    "rrelu_",
    "masked_fill",
    "narrow",
    "linspace",
    "randint_like",
    "adaptive_avg_pool1d",
    "unique_consecutive",
    "conv_transpose3d",
    "is_inference",
    "resolve_conj",
    "resolve_neg",
    "gradient",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "bincount",
    # in library/spectral.py
    "stft",
    "istft",
)
# (`torch.angle` has no row: MindSpore's CPU Angle takes complex tensors only;
# `torch.masked_fill` has none: MindSpore 2.10's CPU kernel refuses a value of another dtype;
# `torch.bernoulli` has none: `ops.bernoulli(x)` draws with p=0.5, not with x's probabilities.)
# Entries whose plain name would shadow a Python builtin or a MindSpore name in the companion module.
_PREFIXED = (
    "diag",
    "round",
    "add",
    "norm",
    "mean",
    "median",
    "bernoulli",
    "angle",
    "argsort",
)

ENTRIES: dict[str, str] = {"torch." + name: name for name in _SAME_NAME}
ENTRIES.update({"torch." + name: "torch_" + name for name in _PREFIXED})
# torch's older name of torch.linalg.householder_product (LAPACK's orgqr), in library/linalg.py.
ENTRIES["torch.orgqr"] = "linalg_householder_product"

# torch functions whose MindSpore op names an argument otherwise (`dim` -> `axis`), passed as
# values: the caller may name it as torch does. Calls keep the API table's idiom.
VALUE_ONLY = frozenset({"stack_value", "cat_value", "softmax_value"})
ENTRIES.update(
    {
        "torch.stack": "stack_value",
        "torch.cat": "cat_value",
        "torch.concat": "cat_value",
        "torch.softmax": "softmax_value",
    }
)
