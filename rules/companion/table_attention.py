"""Companion entries in library/attention.py and library/transformer.py: torch qualified name ->
entry name.

Each class is listed under `torch.nn.<Class>` and under the module torch defines it in.
"""

from __future__ import annotations

_MODULES = {
    "activation": ("MultiheadAttention",),
    "transformer": (
        "TransformerEncoderLayer",
        "TransformerDecoderLayer",
        "TransformerEncoder",
        "TransformerDecoder",
        "Transformer",
    ),
}

ENTRIES: dict[str, str] = {
    "torch.nn.modules.transformer._get_activation_fn": "_get_activation_fn",
}
for _module, _classes in _MODULES.items():
    for _name in _classes:
        ENTRIES["torch.nn." + _name] = _name
        ENTRIES[f"torch.nn.modules.{_module}.{_name}"] = _name
