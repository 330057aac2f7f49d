"""The nodes of the module's ``ast`` tree, listed once per file and shared by the rules.

A rule that needs every assignment, call or function of the original source reads them from
here instead of walking the tree itself: one walk per file, whatever the number of rules.
The lists hold the nodes in ``ast.walk``'s order (breadth first), so a loop over them sees what a
loop over ``ast.walk(tree)`` filtered to the same classes would see.
"""

from __future__ import annotations

import ast

from ...migrator.aliases import statements as _statements
from ...migrator.aliases import walk_order
from ...migrator.context import ModuleContext
from .tree import module_tree

_KEY = "ast.nodes"
_STATEMENTS = "ast.statements"


# The index of the tree being converted, for the analyses that receive the tree, not the context:
# a worker converts one file at a time. Holding the tree keeps its id from being reused.
_LAST: dict[str, tuple] = {}


def _index(tree: ast.AST, key: str, walk) -> tuple[list, dict[type, list]]:
    cached = _LAST.get(key)
    if cached is not None and cached[0] is tree:
        return cached[1]
    every = list(walk(tree))
    by_class: dict[type, list[ast.AST]] = {}
    for node in every:
        found = by_class.get(node.__class__)
        if found is None:
            by_class[node.__class__] = [node]
        else:
            found.append(node)
    _LAST[key] = (tree, (every, by_class))
    return every, by_class


def _select(index: tuple[list, dict[type, list]], classes: tuple[type, ...]) -> list:
    every, by_class = index
    if len(classes) == 1:
        return by_class.get(classes[0], [])
    wanted = frozenset(classes)
    return [node for node in every if node.__class__ in wanted]


def tree_nodes(tree: ast.AST, *classes: type) -> list[ast.AST]:
    """The nodes under ``tree`` that are exactly of one of ``classes`` (no subclasses: ``ast``
    node classes have none), in ``ast.walk``'s order: what
    ``[n for n in ast.walk(tree) if isinstance(n, classes)]`` gives, listed once per tree.
    Shared: read only."""
    return _select(_index(tree, _KEY, walk_order), classes)


def tree_statements(tree: ast.AST, *classes: type) -> list[ast.AST]:
    """``tree_nodes`` for statement classes (and except handlers, match cases), from a walk
    that never enters an expression: for facts about definitions and assignments."""
    return _select(_index(tree, _STATEMENTS, _statements), classes)


def nodes(ctx: ModuleContext, *classes: type) -> list[ast.AST]:
    """``tree_nodes`` of the module's ``ast`` tree."""
    return tree_nodes(module_tree(ctx), *classes)


def statements(ctx: ModuleContext, *classes: type) -> list[ast.AST]:
    """``tree_statements`` of the module's ``ast`` tree."""
    return tree_statements(module_tree(ctx), *classes)
