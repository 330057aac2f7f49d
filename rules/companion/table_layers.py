"""Companion entries in library/layers.py: torch qualified name -> entry name."""

ENTRIES: dict[str, str] = {}
