"""Companion entries in library/tensor_ops.py: torch qualified name -> entry name.

`write_out` is written by the API rule for any call with `out=`; the others stand for the torch
functions and Tensor methods listed here (MindSpore lacks them, or runs them on Ascend only).
"""

from __future__ import annotations

from .table_tensor_methods import ENTRIES as _METHOD_ENTRIES
from .table_tensor_methods import IDIOM_EXCEPT
from .table_tensor_methods import METHOD_PARAMS as _METHOD_PARAMS

# Functions of `torch` whose Tensor method takes the same arguments after the receiver.
_BOTH = {
    "quantile": ("q", "dim", "keepdim", "interpolation"),
    "nanquantile": ("q", "dim", "keepdim", "interpolation"),
    "index_copy": ("dim", "index", "source"),
    "index_add": ("dim", "index", "source", "alpha"),
    "index_put": ("indices", "values", "accumulate"),
    "histc": ("bins", "min", "max"),
    "histogram": ("bins", "range", "weight", "density"),
    "mode": ("dim", "keepdim"),
    "as_strided": ("size", "stride", "storage_offset"),
    "narrow_copy": ("dim", "start", "length"),
    "aminmax": ("dim", "keepdim"),
    "cummax": ("dim",),
    "cummin": ("dim",),
    "scatter_add": ("dim", "index", "src"),
    "masked_scatter": ("mask", "source"),
}
# In-place random fills and element-wise updates: the entry fills the receiver and returns it.
_FILLS = {
    "apply_": ("callable",),
    "cauchy_": ("median", "sigma", "generator"),
    "log_normal_": ("mean", "std", "generator"),
    "exponential_": ("lambd", "generator"),
    "geometric_": ("p", "generator"),
    "bernoulli_": ("p", "generator"),
}

# `torch.*` functions only.
_FUNCTIONS = (
    "signbit",
    "bitwise_not",
    "allclose",
    "select",
    "vdot",
    "take_along_dim",
    "broadcast_shapes",
    "broadcast_tensors",
    "unflatten",
    "cumulative_trapezoid",
    "chain_matmul",
)

ENTRIES: dict[str, str] = {"torch." + name: name for name in _FUNCTIONS}
# Tensor methods served by an entry that takes the receiver first: torch's parameters, any of which
# a call may leave out.
METHOD_PARAMS: dict[str, tuple[str, ...]] = {}
for _name, _params in {**_BOTH, **_FILLS}.items():
    ENTRIES["torch.Tensor." + _name] = _name
    METHOD_PARAMS["torch.Tensor." + _name] = _params
    if _name in _BOTH:
        ENTRIES["torch." + _name] = _name
for _name, _params in {
    "bitwise_not": (),
    "signbit": (),
    "allclose": ("other", "rtol", "atol", "equal_nan"),
    "select": ("dim", "index"),
    "take_along_dim": ("indices", "dim"),
    "unflatten": ("dim", "sizes"),
    # torch.roll's entry (library/functional.py): `ops.roll` has no CPU kernel.
    "roll": ("shifts", "dims"),
}.items():
    ENTRIES["torch.Tensor." + _name] = _name
    METHOD_PARAMS["torch.Tensor." + _name] = _params
# `x.bernoulli(p)` is `torch.bernoulli(x, p)` (library/torch_functions.py): MindSpore's
# Tensor.bernoulli runs on Ascend only.
ENTRIES["torch.Tensor.bernoulli"] = "torch_bernoulli"
METHOD_PARAMS["torch.Tensor.bernoulli"] = ("p", "generator")
# `x.median()` without dim is one value (library/reductions.py's torch.median); MindSpore's
# Tensor.median always reduces one axis and gives (values, indices).
ENTRIES["torch.Tensor.median"] = "torch_median"
METHOD_PARAMS["torch.Tensor.median"] = ("dim", "keepdim")
ENTRIES["torch.Tensor.unique"] = "unique"
# torch.equal's entry gives one Python bool, as `a.equal(b)` does.
# library/functional.py: torch's log_softmax composed (MindSpore's kernel rounds otherwise).
ENTRIES["torch.Tensor.log_softmax"] = "log_softmax_over"
METHOD_PARAMS["torch.Tensor.log_softmax"] = ("dim", "dtype")
ENTRIES["torch.Tensor.equal"] = "equal"
METHOD_PARAMS["torch.Tensor.equal"] = ("other",)
# `x.real` / `x.imag` read as attributes (MindSpore's are methods); `x.mT`, `x.mH`, `x.H`
# of a 0-d tensor (MindSpore's refuse it).
ATTRIBUTES: dict[str, str] = {
    "real": "tensor_real",
    "imag": "tensor_imag",
    "mT": "tensor_mT",
    "mH": "tensor_mH",
    "H": "tensor_H",
}
METHOD_PARAMS["torch.Tensor.unique"] = (
    "sorted",
    "return_inverse",
    "return_counts",
    "dim",
)

__all__ = ["ENTRIES", "IDIOM_EXCEPT", "METHOD_PARAMS"]

# Tensor methods served by library/tensor_methods.py.
ENTRIES.update(_METHOD_ENTRIES)
METHOD_PARAMS.update(_METHOD_PARAMS)
