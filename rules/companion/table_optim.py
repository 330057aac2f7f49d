"""Companion entries in library/optim.py: torch qualified name -> entry name."""

ENTRIES: dict[str, str] = {}
