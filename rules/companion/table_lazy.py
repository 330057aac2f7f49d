"""Companion entries in library/lazy.py: torch qualified name -> entry name."""

from __future__ import annotations

_MODULES = {
    "batchnorm": ("LazyBatchNorm1d", "LazyBatchNorm2d"),
    "instancenorm": ("LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"),
    "linear": ("LazyLinear",),
}
ENTRIES: dict[str, str] = {}
for _module, _classes in _MODULES.items():
    for _name in _classes:
        ENTRIES["torch.nn." + _name] = _name
        ENTRIES[f"torch.nn.modules.{_module}.{_name}"] = _name
