"""Companion entries in library/unpooling.py: torch qualified name -> entry name."""

from __future__ import annotations

F = "torch.nn.functional."

ENTRIES: dict[str, str] = {
    F + "max_pool1d": "max_pool1d",
    "torch.max_pool1d": "max_pool1d",
    F + "max_unpool1d": "max_unpool1d",
    F + "max_unpool2d": "max_unpool2d",
    F + "max_unpool3d": "max_unpool3d",
    F + "instance_norm": "instance_norm",
    "torch.instance_norm": "instance_norm",
    F + "poisson_nll_loss": "poisson_nll_loss",
    "torch.poisson_nll_loss": "poisson_nll_loss",
    F + "embedding": "embedding",
}
_MODULES = {
    "pooling": ("MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"),
    "instancenorm": ("InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"),
    "loss": ("PoissonNLLLoss",),
}
for _module, _classes in _MODULES.items():
    for _name in _classes:
        ENTRIES["torch.nn." + _name] = _name
        ENTRIES[f"torch.nn.modules.{_module}.{_name}"] = _name
