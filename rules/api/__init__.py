"""TM4xx: torch APIs mapped to MindSpore, as data tables, and the rule that applies them."""

from __future__ import annotations

from .spec import ApiMapping
from .table_tensor import TABLE as TENSOR_METHODS
from .table_torch import TABLE as TORCH_FUNCTIONS

ALL_MAPPINGS: tuple[ApiMapping, ...] = TORCH_FUNCTIONS + TENSOR_METHODS
BY_TORCH_NAME: dict[str, ApiMapping] = {m.torch: m for m in ALL_MAPPINGS}
