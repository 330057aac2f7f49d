"""`torch.*` functions added from MindSpore's own mapping facts, and rows that stand in for an
earlier table's row of the same name (registered after the others in rules/api/__init__.py)."""

from __future__ import annotations

from .entries import fn

# `alpha=` scales `other`: MindSpore's Tensor.add/sub take it, ops.add/sub do not.
_ALPHA = [
    fn(
        "torch." + name,
        "mindspore.Tensor." + target,
        params=("input", "other"),
        sample=("f32[2,3]", "f32[2,3]"),
        sample_kwargs={"alpha": 0.5},
    )
    for name, target in (("add", "add"), ("sub", "sub"), ("subtract", "sub"))
]

TABLE = tuple(_ALPHA)
