"""Companion entries in library/membership.py, device_probes.py, index_math.py, tracing.py,
masked.py and gumbel.py."""

ENTRIES: dict[str, str] = {
    "torch.isin": "isin",
    "torch.cuda.device_count": "cuda_device_count",
    "torch.unravel_index": "unravel_index",
    "torch.scalar_tensor": "scalar_tensor",
    "torch.jit.script_if_tracing": "script_if_tracing",
    "torch.masked.mean": "masked_mean",
    "torch.masked.var": "masked_var",
    "torch.distributions.Gumbel": "Gumbel",
    "torch.distributions.gumbel.Gumbel": "Gumbel",
}
