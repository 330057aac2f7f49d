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
        # The left operand runs first: a right one decides only when the left one calls nothing.
        deciding = isinstance(
            test.operator, cst.Or
        )  # True decides or, False decides and
        left = constant(test.left, answers)
        if left == deciding:
            return deciding
        right = constant(test.right, answers)
        if left is None:
            return deciding if right == deciding and not _calls(test.left) else None
        return right
    return None


def _calls(node: cst.CSTNode) -> bool:
    """Whether evaluating ``node`` calls anything."""
    found: list[cst.Call] = []

    class _Find(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> bool:
            found.append(call)
            return False

    node.visit(_Find())
    return bool(found)


def taken_branch(original: cst.If, updated: cst.If, answer: bool, ctx: ModuleContext):
    """What replaces the `if` statement: the statements of the branch taken, or nothing. Each
    keeps the position of the statement it comes from (findings and comments are placed by it)."""
    if answer:
        statements = _statements(updated.body)
    elif updated.orelse is None:
        return cst.RemoveFromParent()
    elif isinstance(updated.orelse, cst.If):
        result = updated.orelse.with_changes(leading_lines=updated.leading_lines)
        ctx.copy_position(result, original.orelse)
        return result
    else:
        statements = _statements(updated.orelse.body)
    if not statements:
        return cst.RemoveFromParent()
    statements[0] = statements[0].with_changes(
        leading_lines=[*updated.leading_lines, *statements[0].leading_lines]
    )
    for old, new in zip(_kept(original, answer), statements):
        if new is not old:
            ctx.copy_position(new, old)
    return cst.FlattenSentinel(statements)


def _statements(block) -> list:
    return list(block.body) if isinstance(block, cst.IndentedBlock) else []


def _kept(original: cst.If, answer: bool):
    """The statements of the original branch taken."""
    if answer:
        return _statements(original.body)
    if isinstance(original.orelse, cst.If):
        return [original.orelse]
    if isinstance(original.orelse, cst.Else):
        return _statements(original.orelse.body)
    return []


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
    spans = [
        (found.line, found.end_line)
        for found in (ctx.statements.get(id(s)) for s in _kept(original, answer))
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
