"""Branches decided by an answered feature check: `if hasattr(torch, "compile"):` becomes the branch
the converted program takes, and the other branch (often torch-only code) is dropped."""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext


def constant(test: cst.BaseExpression, answers: set[int]) -> bool | None:
    """The value of ``test`` when it is decided by answered checks (ids in ``answers``)."""
    if isinstance(test, cst.Name) and id(test) in answers:
        return test.value == "True"
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = constant(test.expression, answers)
        return None if inner is None else not inner
    if isinstance(test, cst.BooleanOperation):
        left, right = constant(test.left, answers), constant(test.right, answers)
        deciding = isinstance(
            test.operator, cst.Or
        )  # True decides `or`, False decides `and`
        if deciding in (left, right):
            return deciding
        if left is not None and right is not None:
            return left and right if not deciding else left or right
    return None


def taken_branch(updated: cst.If, answer: bool):
    """What replaces the `if` statement: the statements of the branch taken, or nothing."""
    if answer:
        statements = (
            list(updated.body.body)
            if isinstance(updated.body, cst.IndentedBlock)
            else []
        )
        return _flattened(statements, updated)
    orelse = updated.orelse
    if orelse is None:
        return cst.RemoveFromParent()
    if isinstance(orelse, cst.If):
        return orelse.with_changes(leading_lines=updated.leading_lines)
    body = orelse.body
    return _flattened(
        list(body.body) if isinstance(body, cst.IndentedBlock) else [], updated
    )


def _flattened(statements: list, updated: cst.If):
    if not statements:
        return cst.RemoveFromParent()
    first = statements[0]
    statements[0] = first.with_changes(
        leading_lines=[*updated.leading_lines, *first.leading_lines]
    )
    return cst.FlattenSentinel(statements)


def ends_the_block(statements) -> bool:
    """Whether the last statement of ``statements`` returns or raises."""
    if not statements:
        return False
    last = statements[-1]
    return isinstance(last, cst.SimpleStatementLine) and isinstance(
        last.body[-1], (cst.Return, cst.Raise)
    )


def drop_dead_findings(original: cst.If, answer: bool, ctx: ModuleContext) -> None:
    """Forget findings already reported on the lines of the branch that is dropped."""
    info = ctx.statements.get(id(original))
    if info is None:
        return
    if answer:
        kept = (
            original.body.body if isinstance(original.body, cst.IndentedBlock) else ()
        )
    elif isinstance(original.orelse, cst.If):
        kept = (original.orelse,)
    elif isinstance(original.orelse, cst.Else) and isinstance(
        original.orelse.body, cst.IndentedBlock
    ):
        kept = original.orelse.body.body
    else:
        kept = ()
    spans = [
        (found.line, found.end_line)
        for found in (ctx.statements.get(id(s)) for s in kept)
        if found is not None
    ]
    ctx.findings[:] = [
        f
        for f in ctx.findings
        if not (
            info.line <= f.line <= info.end_line
            and not any(first <= f.line <= last for first, last in spans)
        )
    ]
