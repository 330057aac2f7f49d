"""Companion entries in library/membership.py and library/device_probes.py."""

ENTRIES: dict[str, str] = {
    "torch.isin": "isin",
    "torch.cuda.device_count": "cuda_device_count",
}
