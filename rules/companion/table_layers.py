"""Companion entries in library/layers.py: torch qualified name -> entry name.

Each class is listed under `torch.nn.<Class>` and under the module torch defines it in
(`torch.nn.modules.batchnorm.BatchNorm2d`), the two names code reaches it by.
"""

from __future__ import annotations

_MODULES = {
    "activation": (
        "CELU",
        "ELU",
        "GELU",
        "Hardsigmoid",
        "Hardswish",
        "Hardtanh",
        "LeakyReLU",
        "Mish",
        "PReLU",
        "RReLU",
        "ReLU",
        "ReLU6",
        "SELU",
        "SiLU",
        "Sigmoid",
        "Softmax",
        "Tanh",
        "Threshold",
    ),
    "batchnorm": ("BatchNorm1d", "BatchNorm2d", "SyncBatchNorm"),
    "conv": ("Conv1d", "Conv2d"),
    "dropout": ("Dropout",),
    "flatten": ("Flatten",),
    "linear": ("Identity", "Linear"),
    "normalization": ("GroupNorm", "LayerNorm"),
    "pooling": ("AdaptiveAvgPool2d", "AvgPool2d", "MaxPool2d"),
    "sparse": ("Embedding",),
}

ENTRIES: dict[str, str] = {}
for _module, _classes in _MODULES.items():
    for _name in _classes:
        ENTRIES["torch.nn." + _name] = _name
        ENTRIES[f"torch.nn.modules.{_module}.{_name}"] = _name

# Losses whose MindSpore class has no CPU kernel for torch's arguments.
ENTRIES["torch.nn.CrossEntropyLoss"] = "CrossEntropyLoss"
ENTRIES["torch.nn.modules.loss.CrossEntropyLoss"] = "CrossEntropyLoss"
ENTRIES["torch.nn.Upsample"] = "Upsample"
ENTRIES["torch.nn.modules.upsampling.Upsample"] = "Upsample"
