"""Companion entries in library/backend_flags.py: torch's backend settings, read back."""

from __future__ import annotations

_SETTINGS = (
    "cudnn.enabled",
    "cudnn.benchmark",
    "cudnn.deterministic",
    "cudnn.allow_tf32",
    "cuda.matmul.allow_tf32",
    "cuda.matmul.allow_fp16_reduced_precision_reduction",
    "cuda.matmul.allow_bf16_reduced_precision_reduction",
)

ENTRIES: dict[str, str] = {
    "torch.backends." + name: name.replace(".", "_") for name in _SETTINGS
}
