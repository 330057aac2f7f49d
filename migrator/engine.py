"""Run the rules of one stage over a module in a single LibCST traversal."""

from __future__ import annotations

from typing import Callable

import libcst as cst

from .context import ModuleContext
from .rule import Rule

_STATEMENT_TYPES = (cst.SimpleStatementLine, cst.BaseCompoundStatement)
_HANDLERS: dict[type, tuple[dict[str, str], dict[str, str]]] = {}


def _handler_names(cls: type) -> tuple[dict[str, str], dict[str, str]]:
    cached = _HANDLERS.get(cls)
    if cached is None:
        visits = {name[6:]: name for name in dir(cls) if name.startswith("visit_")}
        leaves = {name[6:]: name for name in dir(cls) if name.startswith("leave_")}
        cached = _HANDLERS[cls] = (visits, leaves)
    return cached


class StageTransformer(cst.CSTTransformer):
    """Dispatches each node to the handlers of every active rule, in pass order.

    Statements that mention no torch API (by the ``ast`` census) are not entered at all.
    A ``visit_*`` handler that returns False keeps the traversal out of that node's children.
    """

    def __init__(self, ctx: ModuleContext, rules: list[Rule]) -> None:
        super().__init__()
        self.ctx = ctx
        self.visits: dict[str, list[Callable]] = {}
        self.leaves: dict[str, list[Callable]] = {}
        for rule in rules:
            visits, leaves = _handler_names(type(rule))
            for node_type, attr in visits.items():
                self.visits.setdefault(node_type, []).append(getattr(rule, attr))
            for node_type, attr in leaves.items():
                self.leaves.setdefault(node_type, []).append(getattr(rule, attr))

    # Rules have no per-field handlers; LibCST's default looks one up for every field of every node.
    def on_visit_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        return None

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        return None

    def on_visit(self, node: cst.CSTNode) -> bool:
        ctx = self.ctx
        if isinstance(node, _STATEMENT_TYPES):
            ctx.stack.append(node)
            info = ctx.statements.get(id(node))
            if info is not None and not info.relevant:
                return False
        descend = True
        for handler in self.visits.get(type(node).__name__, ()):
            if handler(node, ctx) is False:
                descend = False
        return descend

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):
        ctx = self.ctx
        result = updated_node
        for handler in self.leaves.get(type(original_node).__name__, ()):
            result = handler(original_node, result, ctx)
            if not isinstance(result, cst.CSTNode) or type(result) is not type(original_node):
                break
        if ctx.stack and ctx.stack[-1] is original_node:
            ctx.stack.pop()
        # A rebuilt statement keeps its position for the later stages.
        if result is not original_node and isinstance(result, _STATEMENT_TYPES) and id(result) not in ctx.statements:
            info = ctx.statements.get(id(original_node))
            if info is not None:
                ctx.statements[id(result)] = info
        return result
