"""What this process read and parsed of the files of a run, kept for its later phases.

A run looks at a file of a tree up to three times: its bytes (the first look of the tree pass),
its ``ast`` (the index, for the files others import from) and its conversion. The same process
does all three (``pool``), so it keeps here what it read, decoded and parsed, and a file is read
and parsed once per run. A budget bounds what is kept: an ``ast`` takes about 36 bytes of memory
per character of source (1.4 KB a line). Past the budget, a later phase reads or parses again.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from .sources import Decoded, decode

# Bytes of memory this process keeps for later phases, at most (estimated).
BUDGET = 320_000_000
AST_PER_CHAR = 36


class _Unparsed:
    pass


UNPARSED = _Unparsed()  # a file kept without its ``ast``


@dataclass
class _Kept:
    data: bytes
    decoded: Decoded | None = None
    tree: ast.Module | None | _Unparsed = UNPARSED
    cost: int = 0


_KEPT: dict[str, _Kept] = {}
_used = 0


def _charge(kept: _Kept, cost: int) -> bool:
    global _used
    if _used + cost > BUDGET:
        return False
    _used += cost
    kept.cost += cost
    return True


def read_bytes(path: str) -> bytes:
    """The file's bytes (raises ``OSError``)."""
    kept = _KEPT.get(path)
    if kept is not None:
        return kept.data
    with open(path, "rb") as handle:
        data = handle.read()
    kept = _Kept(data)
    if _charge(kept, len(data)):
        _KEPT[path] = kept
    return data


def decoded(path: str, data: bytes) -> Decoded:
    """The file's text, from its bytes ``data`` (raises ``UnreadableSource``)."""
    kept = _KEPT.get(path)
    if kept is not None and kept.decoded is not None:
        return kept.decoded
    text = decode(data)
    if kept is not None and _charge(kept, len(text.text)):
        kept.decoded = text
    return text


def parsed(path: str, text: str) -> ast.Module | None:
    """The ``ast`` of the file's decoded ``text`` (None where it does not parse)."""
    kept = _KEPT.get(path)
    if kept is not None and kept.tree is not UNPARSED:
        return kept.tree
    tree = _parse(text)
    cost = AST_PER_CHAR * len(text) if tree is not None else 0
    if kept is not None and kept.decoded is not None and _charge(kept, cost):
        kept.tree = tree
    return tree


def _parse(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None  # reported by the conversion


def parsed_before(path: str) -> ast.Module | None | _Unparsed:
    """The ``ast`` kept of the file, or ``UNPARSED``."""
    kept = _KEPT.get(path)
    return UNPARSED if kept is None else kept.tree


def forget(path: str) -> None:
    """Drop what is kept of the file (its last phase has it)."""
    global _used
    kept = _KEPT.pop(path, None)
    if kept is not None:
        _used -= kept.cost


def clear() -> None:
    """Forget everything (a run starts or ends: the files may change in between)."""
    global _used
    _KEPT.clear()
    _used = 0
