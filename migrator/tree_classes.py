"""Module classes that reach a file from other files of the tree (a tree fact).

``class ClassificationTask(TrainingTask)`` in ``timm/task/classification.py`` is a Module because
``TrainingTask``, imported from ``.task``, derives from ``nn.Module``: its ``forward`` must become
``construct`` like any Module's, although the file itself never names ``nn.Module``. This module
follows the file's ``from ... import`` of the tree's own modules, through re-exports and chains of
base classes, and gives the imported names that are Module classes.
"""

from __future__ import annotations

import ast
import functools
import os

from .aliases import dotted as _dotted
from .aliases import resolve, torch_aliases
from .star_imports import _module_file

_DEPTH = 12


def module_classes(
    path: str, source: str, root: str | None, tree: ast.Module | None = None
) -> frozenset[str]:
    """The names the file at ``path`` (whose ``ast`` is ``tree`` when the caller has it) imports
    from other files of the tree at ``root`` that are Module classes (nothing for a lone file)."""
    if root is None or "import" not in source:
        return frozenset()
    try:
        tree = tree or ast.parse(source)
    except (SyntaxError, ValueError):
        return frozenset()
    found: set[str] = set()
    root = os.path.abspath(root)
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom):
            continue
        for alias in node.names:
            if alias.name == "*":
                continue
            where = _origin(os.path.abspath(path), root, node, alias.name)
            if where is not None and _is_module(*where, root, 0):
                found.add(alias.asname or alias.name)
    return frozenset(found)


def _origin(
    path: str, root: str, node: ast.ImportFrom, name: str
) -> tuple[str, str] | None:
    """The file of the tree and the name in it that ``from <node.module> import name`` reads."""
    module_file = _module_file(path, root, node)
    return (module_file, name) if module_file is not None else None


@functools.lru_cache(maxsize=4096)
def _parsed(path: str) -> tuple[ast.Module, dict[str, str]] | None:
    try:
        with open(path, "rb") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError):
        return None
    return tree, torch_aliases(tree)


@functools.lru_cache(maxsize=16384)
def _is_module(path: str, name: str, root: str, depth: int) -> bool:
    """Whether ``name`` in the file at ``path`` is a class deriving from a torch Module, directly or
    through classes of the tree (followed up to a fixed depth)."""
    if depth > _DEPTH:
        return False
    parsed = _parsed(path)
    if parsed is None:
        return False
    tree, aliases = parsed
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return any(
                _is_module_base(base, path, tree, aliases, root, depth)
                for base in node.bases
            )
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if (alias.asname or alias.name) == name and alias.name != "*":
                    where = _origin(path, root, node, alias.name)
                    return where is not None and _is_module(*where, root, depth + 1)
    return False


def _is_module_base(
    base: ast.expr,
    path: str,
    tree: ast.Module,
    aliases: dict[str, str],
    root: str,
    depth: int,
) -> bool:
    name = _dotted(base)
    if name is None:
        return False
    qualified = resolve(name, aliases)
    if qualified is not None:
        from ..rules.nn.layers import is_layer

        return is_layer(qualified)
    if "." in name:
        return False
    return _is_module(path, name, root, depth + 1)
