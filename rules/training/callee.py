"""A summarised helper of the module, rewritten to take gradients in place of the loss.

``def __call__(self, loss, optimizer, ...)`` whose body is ``self._scaler.scale(loss).backward()``
then unscale/clip/step/update becomes ``def __call__(self, grads, optimizer, ...)`` with those
statements on ``grads``; a helper that changes the gradients returns them, so that the caller's G
stays what torch's ``.grad`` holds after the call.
"""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.findings import WARNING
from ..common.dataflow import fresh_name
from . import emit
from .callsite import emit_inner, second_order_guard
from .choice import choice_statement
from .helper_examples import USE as HELPER_USE
from .stepbody import BodyEmitter
from .summaries import StepSummary, Summaries, backward_site, is_zero, names_in


def rewrite_callee(
    node: cst.FunctionDef,
    summary: StepSummary,
    ctx: ModuleContext,
    found: Summaries,
    report: bool = False,
) -> cst.FunctionDef:
    body = list(node.body.body)
    taken = names_in(node) | set(ctx.bound_names)
    gvar = fresh_name("grads", taken - {summary.loss})
    taken.add(gvar)

    def namer(base: str) -> str:
        chosen = fresh_name(base, taken)
        taken.add(chosen)
        return chosen

    def written(block: list, site_summary: StepSummary) -> list:
        return _on_gradients(block, site_summary, gvar, namer, ctx, found, report)

    if summary.choice is not None:
        index = choice_statement(node)
        branch = body[index]
        first, second = summary.choice[1]
        new_branch = branch.with_changes(
            body=branch.body.with_changes(body=written(list(branch.body.body), first)),
            orelse=branch.orelse.with_changes(
                body=branch.orelse.body.with_changes(
                    body=written(list(branch.orelse.body.body), second)
                )
            ),
        )
        new_body = [*body[:index], new_branch, *body[index + 1 :]]
    else:
        new_body = written(body, summary)
    if summary.transforms:
        new_body = [s.visit(_ReturnGrads(gvar, summary.result)) for s in new_body]
        if not _ends_with_return(new_body):
            new_body.append(
                emit.template("return __G__, None", G=gvar)
                if summary.result
                else emit.template("return __G__", G=gvar)
            )
    if not new_body:
        new_body = [cst.SimpleStatementLine([cst.Pass()])]
    params_node = node.params.visit(_RenameParam(summary.loss, gvar))
    return node.with_changes(
        params=params_node, body=node.body.with_changes(body=new_body)
    )


def _on_gradients(
    body: list, summary: StepSummary, gvar: str, namer, ctx, found, report: bool
) -> list:
    """The statements of a helper (or of one branch of it) with its backward taken away and what
    follows written on the gradients ``gvar``."""
    params = set(summary.params)
    index = next(
        i
        for i, stmt in enumerate(body)
        if backward_site(stmt, ctx, found, params) is not None
    )
    site = backward_site(body[index], ctx, found, params)

    def inner(site_, stmt, g):
        return emit_inner(site_, stmt, g, namer, ctx, found)

    emitter = BodyEmitter(summary, gvar, namer, ctx, found, emit_site=inner)
    head = [s for s in body[:index] if not (summary.zeroes_first and is_zero(s, ctx))]
    if summary.create_graph_free is not None:
        head.append(_guard(summary, body[index], ctx, report))
    if site is not None and not site.get("direct"):
        rest = [body[index], *body[index + 1 :]]
    else:
        rest = body[index + 1 :]
    return head + emitter.body(rest)


def _guard(summary: StepSummary, stmt, ctx: ModuleContext, report: bool) -> cst.If:
    """``if second_order: raise NotImplementedError(...)`` where the backward was: gradient values
    carry no graph, so the rewrite holds while the ``create_graph`` the helper reads is false."""
    name = summary.create_graph_free
    if report:
        ctx.report(
            "TM210",
            f"rewritten for `create_graph={name}` false: the converted `{summary.qualname}` "
            "raises NotImplementedError when it is true (a higher-order backward has no "
            "gradient-value form)",
            HELPER_USE,
            node=stmt,
            severity=WARNING,
        )
    guard = second_order_guard(cst.Name(name), summary)
    ctx.copy_position(guard, stmt)
    return guard


def _ends_with_return(body) -> bool:
    last = body[-1] if body else None
    return isinstance(last, cst.SimpleStatementLine) and isinstance(
        last.body[-1], cst.Return
    )


class _ReturnGrads(cst.CSTTransformer):
    """``return`` gives the gradients; a helper that returns a value computed from them
    (its gradient norm) gives both."""

    def __init__(self, gvar: str, result: str | None = None) -> None:
        self.gvar, self.result = gvar, result

    def visit_FunctionDef(self, node) -> bool:
        return False

    def leave_Return(self, original, updated):
        if self.result is None:
            if updated.value is None:
                return updated.with_changes(value=cst.Name(self.gvar))
            return updated
        value = updated.value if updated.value is not None else cst.Name("None")
        return updated.with_changes(
            value=cst.Tuple(
                [cst.Element(cst.Name(self.gvar)), cst.Element(value)],
                lpar=[],
                rpar=[],
            )
        )


class _RenameParam(cst.CSTTransformer):
    def __init__(self, old: str, new: str) -> None:
        self.old, self.new = old, new

    def leave_Param(self, original, updated):
        if updated.name.value == self.old:
            return updated.with_changes(name=cst.Name(self.new))
        return updated
