"""Companion entries in library/recurrent.py: torch qualified name -> entry name."""

ENTRIES: dict[str, str] = {}
