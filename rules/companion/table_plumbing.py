"""Companion entries in library/plumbing.py: torch qualified name -> entry name."""

ENTRIES: dict[str, str] = {
    "torch.jit.is_scripting": "is_scripting",
}
