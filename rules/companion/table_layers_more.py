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
    F + "l1_loss": "l1_loss",
    F + "mse_loss": "mse_loss",
    F + "huber_loss": "huber_loss",
    F + "one_hot": "one_hot",
    "torch.nn.modules.batchnorm._BatchNorm": "BatchNormBase",
}
_MODULES = {
    "activation": ("Softmin", "LogSoftmax", "Softshrink", "Softplus"),
    "loss": ("SmoothL1Loss", "MSELoss"),
    "linear": ("Bilinear",),
    "normalization": ("RMSNorm",),
    "batchnorm": ("BatchNorm3d",),
}
for _module, _classes in _MODULES.items():
    for _name in _classes:
        ENTRIES["torch.nn." + _name] = _name
        ENTRIES[f"torch.nn.modules.{_module}.{_name}"] = _name
