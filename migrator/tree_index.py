"""What a file of the tree tells the files that import it: one summary per file, several kinds of
fact, from a single ``ast`` parse.

- ``exported``: the torch aliases ``from module import *`` hands on (``star_imports``);
- ``aliases``, ``classes`` and ``imports``: its torch aliases, its top-level classes with their
  bases, and the names it imports from other modules, enough to tell which of its names are
  Module classes (``tree_classes``).

A summary is small (names only, no syntax tree), so a worker keeps the summaries of every file it
has seen for the rest of the run. Every parse the run makes anyway gives its file's summary: the
step index of the tree pass (``tree_merge``, before the workers fork, so they inherit them) and
each file's conversion. Another file is read and parsed once, when a file first imports from it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from .aliases import dotted, exported_aliases, torch_aliases


@dataclass(frozen=True)
class ModuleSummary:
    # torch aliases the module hands to `from module import *`
    exported: dict[str, str]
    # every torch alias the module binds
    aliases: dict[str, str]
    # top-level classes (the first definition of each name): the dotted names of their bases
    # (None where a base is no Name/Attribute chain)
    classes: dict[str, tuple[str | None, ...]]
    # names imported by top-level `from ... import` (the first import of each name):
    # local name -> (level, module, imported name)
    imports: dict[str, tuple[int, str | None, str]]


def summarise(tree: ast.Module) -> ModuleSummary:
    classes: dict[str, tuple[str | None, ...]] = {}
    imports: dict[str, tuple[int, str | None, str]] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            if node.name not in classes:
                classes[node.name] = tuple(dotted(base) for base in node.bases)
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                local = alias.asname or alias.name
                if alias.name != "*" and local not in imports:
                    imports[local] = (node.level, node.module, alias.name)
    return ModuleSummary(exported_aliases(tree), torch_aliases(tree), classes, imports)


# Per process: path -> its summary (None: unreadable or not Python).
_SUMMARIES: dict[str, ModuleSummary | None] = {}


def remember(path: str, tree: ast.Module) -> None:
    """Keep the summary of the file at ``path`` from the ``ast`` its conversion parsed."""
    if path not in _SUMMARIES:
        _SUMMARIES[path] = summarise(tree)


def summary(path: str) -> ModuleSummary | None:
    """The summary of the file at ``path``, parsed at most once per process."""
    try:
        return _SUMMARIES[path]
    except KeyError:
        pass
    try:
        with open(path, "rb") as handle:
            found = summarise(ast.parse(handle.read()))
    except (OSError, SyntaxError, ValueError):
        found = None
    _SUMMARIES[path] = found
    return found
