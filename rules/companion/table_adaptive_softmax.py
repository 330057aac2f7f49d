"""Companion entries in library/adaptive_softmax.py: torch qualified name -> entry name."""

from __future__ import annotations

ENTRIES: dict[str, str] = {
    "torch.nn.AdaptiveLogSoftmaxWithLoss": "AdaptiveLogSoftmaxWithLoss",
    "torch.nn.modules.adaptive.AdaptiveLogSoftmaxWithLoss": "AdaptiveLogSoftmaxWithLoss",
}
