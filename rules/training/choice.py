"""A helper whose backward is chosen at run time: ``if T: <a backward> else: <another>``.

timm's ``_backward(_loss)`` runs ``loss_scaler(_loss, optimizer, ...)`` when a scaler is given and
``_loss.backward()`` then ``optimizer.step()`` when not. Each branch is summarised as a helper of
its own; the helper's summary keeps the test and both summaries. A call site differentiates
``scaler.scale(loss) if T else loss`` (each branch's own loss), and the rewritten helper keeps the
``if``, each branch written on the gradients as its summary says. The test is evaluated where the
call is, so it may read only the helper's parameters (bound at the call) and names the helper reads
from outside (an enclosing function's, for a closure): never a value the helper computes.
"""

from __future__ import annotations

import libcst as cst

from ..common.dataflow import usage
from .summaries import (
    StepSummary,
    Summaries,
    _has_backward,
    _params,
    backward_site,
    body_of,
    names_in,
    walk_calls,
)

ARMS = ("if", "else")


def choice_statement(node: cst.FunctionDef) -> int | None:
    """The index of the one top-level ``if``/``else`` that holds the helper's backward."""
    body = body_of(node)
    found = [
        i
        for i, stmt in enumerate(body)
        if isinstance(stmt, cst.If) and _has_backward(_as_def(node, [stmt]))
    ]
    if len(found) != 1:
        return None
    return found[0]


def summarize_choice(
    qualname: str, node: cst.FunctionDef, cls, found: Summaries, ctx
) -> StepSummary | str | None:
    """The summary of a helper whose backward sits in the two branches of one ``if``; a reason
    when it has that shape but cannot be summarised; None when it has another shape."""
    from .summaries import summarize_one

    index = choice_statement(node)
    if index is None:
        return None
    body = body_of(node)
    stmt = body[index]
    params, defaults = _params(node, cls is not None)
    test = cst.Module([]).code_for_node(stmt.test)
    if not isinstance(stmt.orelse, cst.Else):
        return None
    for later in body[index + 1 :]:
        if not _is_bare_return(later):
            return f"its backward() runs under `if {test}:`, and statements follow that `if`"
    computed = _assigned(body[:index])
    if any(True for _ in walk_calls(stmt.test)):
        return f"its backward() runs under `if {test}:`, whose test calls a function"
    read = names_in(stmt.test)
    if read & computed:
        return (
            f"its backward() runs under `if {test}:`, a value the helper computes, which its "
            "callers cannot evaluate"
        )
    arms: list[StepSummary] = []
    for label, block in zip(ARMS, (stmt.body.body, stmt.orelse.body.body)):
        scratch = f"{qualname}[{label}]"
        arm = _as_def(node, list(block)).with_changes(name=cst.Name("_arm"))
        result = summarize_one(scratch, arm, cls, found, ctx)
        summary = found.functions.pop(scratch, None)
        reason = found.failures.pop(scratch, None)
        found.failed_nodes.pop(id(arm), None)
        if result != "ok" or summary is None:
            where = f"`if {test}:`" if label == "if" else f"the `else` of `if {test}:`"
            return f"its backward() under {where} cannot be summarised: " + (
                reason or "that branch runs no backward() on the loss it receives"
            )
        arms.append(summary)
    first, second = arms
    if first.loss != second.loss:
        return f"the two branches of `if {test}:` run backward() on different values"
    if first.optimizer != second.optimizer:
        return f"the two branches of `if {test}:` step different optimizers"
    if first.zeroes_first or second.zeroes_first:
        return f"a branch of `if {test}:` zeroes the gradients before its backward()"
    graphs = {a.create_graph for a in arms} - {None}
    if len(graphs) > 1:
        return (
            f"the two branches of `if {test}:` pass different `create_graph` arguments"
        )
    for arm in arms:
        arm.qualname = qualname
        arm.node = node
        arm.params, arm.defaults = params, defaults
    return StepSummary(
        qualname,
        node,
        params,
        defaults,
        first.loss,
        optimizer=first.optimizer,
        create_graph=next(iter(graphs), None),
        transforms=first.transforms or second.transforms,
        choice=(stmt.test, (first, second)),
    )


def arm_site(block, summary: StepSummary, ctx, found: Summaries) -> int:
    """The index of the backward (or the loss-scaler call) in one branch of a choice."""
    params = set(summary.params)
    return next(
        i
        for i, stmt in enumerate(block)
        if backward_site(stmt, ctx, found, params) is not None
    )


def _as_def(node: cst.FunctionDef, stmts: list) -> cst.FunctionDef:
    return node.with_changes(body=cst.IndentedBlock(body=stmts))


def _is_bare_return(stmt) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], (cst.Return, cst.Pass))
        and getattr(stmt.body[0], "value", None) is None
    )


def _assigned(stmts) -> set[str]:
    names: set[str] = set()
    for stmt in stmts:
        names |= usage(stmt).writes
    return names
