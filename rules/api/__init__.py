"""TM4xx: torch APIs mapped to MindSpore, as data tables, and the rule that applies them."""

from __future__ import annotations

import dataclasses

from .inplace_derived import derived_inplace
from .method_derived import derived_methods
from .spec import ApiMapping
from .table_fft import TABLE as FFT
from .table_functional import TABLE as FUNCTIONAL
from .table_init import TABLE as NN_INIT
from .table_linalg import TABLE as LINALG
from .nn_modules import module_names
from .table_mint import MINT
from .table_nn import TABLE as NN_LAYERS
from .table_optim import TABLE as OPTIM
from .table_report import TABLE as REPORT_ONLY
from .table_special import TABLE as SPECIAL
from .table_tensor import INPLACE as TENSOR_INPLACE
from .table_tensor import REPORTS as TENSOR_REPORTS
from .table_tensor import TABLE as TENSOR_METHODS
from .table_tensor_more import TABLE as TENSOR_MORE
from .table_torch import TABLE as TORCH_FUNCTIONS
from .table_torch_more import TABLE as TORCH_MORE

# Rows of the later tables stand in for an earlier row of the same torch name.
_LATER = {m.torch for m in TENSOR_MORE + TORCH_MORE}
_TABLES: tuple[ApiMapping, ...] = tuple(
    m
    for m in TORCH_FUNCTIONS
    + TENSOR_METHODS
    + TENSOR_INPLACE
    + TENSOR_REPORTS
    + FUNCTIONAL
    + NN_LAYERS
    + NN_INIT
    + OPTIM
    + FFT
    + LINALG
    + SPECIAL
    + REPORT_ONLY
    if m.torch not in _LATER
) + TENSOR_MORE + TORCH_MORE
# Each entry carries the Ascend-only `mindspore.mint` alternative the official table lists for it.
ALL_MAPPINGS: tuple[ApiMapping, ...] = tuple(
    dataclasses.replace(m, mint=MINT[m.torch]) if m.torch in MINT else m
    for m in _TABLES
)
BY_TORCH_NAME: dict[str, ApiMapping] = {m.torch: m for m in ALL_MAPPINGS}
# A `torch.nn` class is also reached as `torch.nn.modules[.<file>].<Class>`.
BY_TORCH_NAME.update(
    {alias: m for m in ALL_MAPPINGS for alias in module_names(m.torch)}
)
# Tensor methods by method name (`view` -> the `torch.Tensor.view` entry).
METHODS: dict[str, ApiMapping] = {
    m.torch.rsplit(".", 1)[1]: m for m in ALL_MAPPINGS if m.kind == "method"
}
# `x.op(...)` for every method the tables leave out whose `torch.op` function row is certain.
DERIVED_METHODS: tuple[ApiMapping, ...] = tuple(derived_methods(METHODS, BY_TORCH_NAME))
ALL_MAPPINGS += DERIVED_METHODS
BY_TORCH_NAME.update((m.torch, m) for m in DERIVED_METHODS)
METHODS.update((m.torch.rsplit(".", 1)[1], m) for m in DERIVED_METHODS)
# `x.op_(...)` for every in-place method the tables leave out, from `op`'s own mapping.
DERIVED_INPLACE: tuple[ApiMapping, ...] = tuple(derived_inplace(METHODS, BY_TORCH_NAME))
ALL_MAPPINGS += DERIVED_INPLACE
BY_TORCH_NAME.update((m.torch, m) for m in DERIVED_INPLACE)
METHODS.update(
    (m.torch.rsplit(".", 1)[1], m) for m in DERIVED_INPLACE if m.kind == "method"
)
