"""Receivers of ``x.detach_()`` that the statements before it prove to be leaves.

``detach_`` of a leaf only clears its ``requires_grad`` flag. Two statements of the same block
prove the receiver a leaf before the call:

- ``x = nn.Parameter(...)``: ``x`` holds a Parameter;
- ``x.requires_grad = False``: torch lets only a leaf change the flag (a computed tensor raises),
  so ``x`` is a leaf that requires no gradient, and ``detach_`` changes nothing.

A statement that binds ``x`` again between the proof and the call cancels it.
"""

from __future__ import annotations

import ast

from ...migrator.aliases import statements
from ...migrator.context import ModuleContext
from ..common.tree import module_tree

PARAMETER = "parameter"
LEAF = "leaf"

_PARAMETER_NAMES = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})
_BLOCKS = ("body", "orelse", "finalbody")


def detach_receiver(line: int, receiver: str, ctx: ModuleContext) -> str | None:
    """``PARAMETER`` or ``LEAF`` when an earlier statement of the block holding the expression
    statement ``receiver.detach_()`` at ``line`` proves ``receiver`` one; None otherwise."""
    for node in statements(module_tree(ctx)):
        for field in _BLOCKS:
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for index, stmt in enumerate(block):
                if (
                    isinstance(stmt, ast.Expr)
                    and stmt.lineno == line
                    and _is_detach(stmt.value, receiver)
                ):
                    return _proof(block[:index], receiver, ctx)
    return None


def _is_detach(value: ast.AST, receiver: str) -> bool:
    return (
        isinstance(value, ast.Call)
        and not value.args
        and not value.keywords
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "detach_"
        and ast.unparse(value.func.value) == receiver
    )


def _proof(before: list[ast.stmt], receiver: str, ctx: ModuleContext) -> str | None:
    found = None
    for stmt in before:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target, value = stmt.targets[0], stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            target, value = stmt.target, stmt.value
        else:
            if _binds(stmt, receiver):
                found = None
            continue
        if ast.unparse(target) == receiver:
            found = PARAMETER if _makes_parameter(value, ctx) else None
        elif (
            isinstance(target, ast.Attribute)
            and target.attr == "requires_grad"
            and ast.unparse(target.value) == receiver
            and isinstance(value, ast.Constant)
            and value.value is False
        ):
            found = found or LEAF
        elif _binds(stmt, receiver):
            found = None
    return found


def _makes_parameter(value: ast.AST, ctx: ModuleContext) -> bool:
    if not isinstance(value, ast.Call):
        return False
    head, _, rest = ast.unparse(value.func).partition(".")
    target = ctx.aliases.get(head)
    if target is None:
        return False
    return (f"{target}.{rest}" if rest else target) in _PARAMETER_NAMES


def _binds(stmt: ast.stmt, receiver: str) -> bool:
    """Whether ``stmt`` (or a statement inside it) may bind ``receiver`` or its root name."""
    root = receiver.split(".")[0]
    for node in ast.walk(stmt):
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(
            node.ctx, (ast.Store, ast.Del)
        ):
            text = ast.unparse(node)
            if text in (receiver, root):
                return True
    return False
