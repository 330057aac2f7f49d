"""Companion entries in library/conv_transpose.py: torch qualified name -> entry name."""

from __future__ import annotations

ENTRIES: dict[str, str] = {}
for _name in ("ConvTranspose1d", "ConvTranspose2d"):
    ENTRIES["torch.nn." + _name] = _name
    ENTRIES["torch.nn.modules.conv." + _name] = _name
