"""Companion entries in library/data.py: torch qualified name -> entry name."""

ENTRIES: dict[str, str] = {}
