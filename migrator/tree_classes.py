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

from .aliases import resolve
from .star_imports import module_file_of
from .tree_index import summary

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
    path = os.path.abspath(path)
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom):
            continue
        for alias in node.names:
            if alias.name == "*":
                continue
            where = _origin(path, root, node.level, node.module, alias.name)
            if where is not None and _is_module(*where, root, 0):
                found.add(alias.asname or alias.name)
    return frozenset(found)


def _origin(
    path: str, root: str, level: int, module: str | None, name: str
) -> tuple[str, str] | None:
    """The file of the tree and the name in it that ``from <module> import name`` reads."""
    module_file = module_file_of(path, root, level, module)
    return (module_file, name) if module_file is not None else None


@functools.lru_cache(maxsize=16384)
def _is_module(path: str, name: str, root: str, depth: int) -> bool:
    """Whether ``name`` in the file at ``path`` is a class deriving from a torch Module, directly or
    through classes of the tree (followed up to a fixed depth)."""
    if depth > _DEPTH:
        return False
    found = summary(path)
    if found is None:
        return False
    bases = found.classes.get(name)
    if bases is not None:
        return any(
            _is_module_base(base, path, found.aliases, root, depth) for base in bases
        )
    imported = found.imports.get(name)
    if imported is not None:
        where = _origin(path, root, *imported)
        return where is not None and _is_module(*where, root, depth + 1)
    return False


def _is_module_base(
    name: str | None,
    path: str,
    aliases: dict[str, str],
    root: str,
    depth: int,
) -> bool:
    if name is None:
        return False
    qualified = resolve(name, aliases)
    if qualified is not None:
        from ..rules.nn.layers import is_layer

        return is_layer(qualified)
    if "." in name:
        return False
    return _is_module(path, name, root, depth + 1)
