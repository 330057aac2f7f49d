"""Companion entries in library/resampling.py: torch qualified name -> entry name."""

from __future__ import annotations

F = "torch.nn.functional."

ENTRIES: dict[str, str] = {
    F + "upsample_nearest": "upsample_nearest",
    F + "upsample_bilinear": "upsample_bilinear",
    F + "channel_shuffle": "channel_shuffle",
    F + "native_channel_shuffle": "channel_shuffle",
    "torch.channel_shuffle": "channel_shuffle",
    "torch.native_channel_shuffle": "channel_shuffle",
    F + "fractional_max_pool2d": "fractional_max_pool2d",
    F + "fractional_max_pool3d": "fractional_max_pool3d",
}
_MODULES = {
    "padding": ("CircularPad1d", "CircularPad2d", "CircularPad3d", "ReflectionPad3d"),
    "upsampling": ("UpsamplingNearest2d", "UpsamplingBilinear2d"),
    "channelshuffle": ("ChannelShuffle",),
    "pooling": ("FractionalMaxPool2d", "FractionalMaxPool3d"),
}
for _module, _classes in _MODULES.items():
    for _name in _classes:
        ENTRIES["torch.nn." + _name] = _name
        ENTRIES[f"torch.nn.modules.{_module}.{_name}"] = _name
