"""Companion entries in library/recurrent.py: torch qualified name -> entry name.

Each class is listed under `torch.nn.<Class>` and under the module torch defines it in.
"""

from __future__ import annotations

_MODULES = {
    "rnn": ("LSTM", "GRU", "RNN", "LSTMCell", "GRUCell", "RNNCell"),
    "fold": ("Unfold", "Fold"),
    "conv": ("Conv3d",),
    "dropout": ("Dropout2d",),
}

ENTRIES: dict[str, str] = {"torch.Tensor.unfold": "tensor_unfold"}
for _module, _classes in _MODULES.items():
    for _name in _classes:
        ENTRIES["torch.nn." + _name] = _name
        ENTRIES[f"torch.nn.modules.{_module}.{_name}"] = _name

# Tensor methods served by an entry that takes the receiver first: torch's parameters, all of
# which a call must pass for it to be that method (`self.unfold(x)` calls a layer).
METHOD_PARAMS: dict[str, tuple[str, ...]] = {
    "torch.Tensor.unfold": ("dimension", "size", "step"),
}
