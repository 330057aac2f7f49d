"""Companion entries in library/nn_utils.py: torch qualified name -> entry name."""

from __future__ import annotations

_RNN = (
    "pad_sequence",
    "unpad_sequence",
    "invert_permutation",
    "PackedSequence",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pack_sequence",
    "unpack_sequence",
)
_VECTOR = ("parameters_to_vector", "vector_to_parameters")

ENTRIES: dict[str, str] = {}
for _name in _RNN:
    ENTRIES["torch.nn.utils.rnn." + _name] = _name
for _name in _VECTOR:
    ENTRIES["torch.nn.utils." + _name] = _name
    ENTRIES["torch.nn.utils.convert_parameters." + _name] = _name
