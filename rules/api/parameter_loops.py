"""Loops over a module's parameters: the names they bind hold Parameters inside the loop body."""

from __future__ import annotations

import ast

from ...migrator.aliases import statements
from ...migrator.context import ModuleContext
from ..common.tree import module_tree

# Methods of torch's Module and MindSpore's Cell that yield Parameters, and where in each item.
_YIELDS = {
    "parameters": None,
    "trainable_params": None,
    "get_parameters": None,
    "named_parameters": 1,
    "parameters_and_names": 1,
}
_STATE = "parameter_loops"


def parameter_loops(ctx: ModuleContext) -> list[tuple[frozenset[str], int, int]]:
    """(names bound to a Parameter, first line, last line) for each such loop of the module."""
    found = ctx.state.get(_STATE)
    if found is None:
        found = [_loop(node) for node in statements(module_tree(ctx))]
        found = [f for f in found if f is not None]
        ctx.state[_STATE] = found
    return found


def _loop(node: ast.AST) -> tuple[frozenset[str], int, int] | None:
    if not isinstance(node, ast.For) or not isinstance(node.iter, ast.Call):
        return None
    func = node.iter.func
    if not isinstance(func, ast.Attribute) or func.attr not in _YIELDS:
        return None
    index = _YIELDS[func.attr]
    target = node.target
    if index is not None:
        if not isinstance(target, ast.Tuple) or len(target.elts) != 2:
            return None
        target = target.elts[index]
    if not isinstance(target, ast.Name):
        return None
    last = max(getattr(s, "end_lineno", s.lineno) or s.lineno for s in node.body)
    return frozenset({target.id}), node.body[0].lineno, last
