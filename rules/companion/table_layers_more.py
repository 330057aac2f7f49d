"""Companion entries in library/layers_more.py: torch qualified name -> entry name."""

from __future__ import annotations

F = "torch.nn.functional."

ENTRIES: dict[str, str] = {
    F + "softshrink": "softshrink",
    F + "smooth_l1_loss": "smooth_l1_loss",
    "torch.smooth_l1_loss": "smooth_l1_loss",
    F + "dropout1d": "dropout1d",
    F + "dropout2d": "dropout2d",
    F + "dropout3d": "dropout3d",
}
_MODULES = {
    "activation": ("Softmin", "LogSoftmax", "Softshrink"),
    "loss": ("SmoothL1Loss",),
    "batchnorm": ("BatchNorm3d",),
}
for _module, _classes in _MODULES.items():
    for _name in _classes:
        ENTRIES["torch.nn." + _name] = _name
        ENTRIES[f"torch.nn.modules.{_module}.{_name}"] = _name
