"""Companion entries in library/sdpa_backends.py: torch qualified name -> entry name."""

from __future__ import annotations

A = "torch.nn.attention."

ENTRIES: dict[str, str] = {
    A + "SDPBackend": "SDPBackend",
    A + "sdpa_kernel": "sdpa_kernel",
    A + "_cur_sdpa_kernel_backends": "_cur_sdpa_kernel_backends",
    A + "flex_attention.and_masks": "and_masks",
    A + "flex_attention.or_masks": "or_masks",
    A + "flex_attention.noop_mask": "noop_mask",
}
