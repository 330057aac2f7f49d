"""Positions of statements lifted out of a `with` block that a rule removes."""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.index import StatementInfo


def first_position(
    ctx: ModuleContext, new: cst.CSTNode, first: cst.CSTNode, block: cst.CSTNode
) -> None:
    """The first statement of an unwrapped block stands from the `with` line to its own end: the
    findings of the `with` line go with it, and those of the statements after it stay with them
    (a position spanning the whole block would gather them all above the first statement, and a
    second conversion would then add their comments where they belong)."""
    own = ctx.statements.get(id(first))
    outer = ctx.statements.get(id(block))
    if own is None or outer is None:
        ctx.copy_position(new, block)
        return
    ctx.statements[id(new)] = StatementInfo(
        outer.line, own.column, own.end_line, outer.relevant or own.relevant
    )
    ctx.keep.append(new)
