"""Companion entries in library/functional.py: torch qualified name -> entry name."""

ENTRIES: dict[str, str] = {
    "torch.roll": "roll",
}
