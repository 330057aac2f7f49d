"""Call sites of summarised helpers, in the caller's gradient-state terms.

``loss_scaler(loss, optimizer, clip_grad=c, update_grad=flag)`` is, for the caller, a backward of
``loss`` (scaled by the helper's scaler) followed by what the helper does to G. The analysis sees a
backward statement made for it (the loss's forward region becomes ``forward_fn`` as for any
backward) and the call itself as one event that reads G, and changes it when the helper unscales,
clips or zeroes. The call is then written on gradient values: ``grads = loss_scaler(grads, ...)``
for a helper of the module (rewritten to take gradients), or the library helper's statements on
``grads`` at the call site.
"""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.engine import visit
from ...migrator.findings import NOTE, WARNING
from ..common.dataflow import code_of
from .events import SYNTHETIC, Event
from .helper_examples import USE as HELPER_USE
from .stepbody import BodyEmitter, StepProblem
from .summaries import (
    StepSummary,
    Summaries,
    assumed_class,
    backward_site,
    bind,
    assigned_call,
    expr_call,
    names_in,
    resolve_call,
)
from .tree_steps import kept_reason

PROBLEMS = "training.call_problems"


def summaries_of(facts) -> Summaries | None:
    return getattr(facts, "step_summaries", None)


def receiver_of(call: cst.Call, summary: StepSummary) -> cst.BaseExpression | None:
    """``loss_scaler`` for ``loss_scaler(...)``, ``self`` for ``self.step_fn(...)``."""
    if summary.library or summary.qualname.endswith(".__call__"):
        return call.func
    if isinstance(call.func, cst.Attribute) and "." in summary.qualname:
        return call.func.value
    return None


def caller_name(
    name: str | None, summary: StepSummary, bound: dict, receiver
) -> str | None:
    """A name of the helper (``self._scaler``, ``optimizer``) as the caller spells it."""
    if name is None:
        return None
    head, dot, rest = name.partition(".")
    if head == "self":
        if receiver is None:
            return None
        base = code_of(receiver)
    elif head in summary.params:
        value = bound.get(head)
        if value is None:
            return None
        base = code_of(value)
    else:
        base = head
    return base + dot + rest


def expand(stmt, ctx: ModuleContext, facts) -> list | None:
    """The statements the analysis sees in place of a call of a summarised helper."""
    found = summaries_of(facts)
    if found is None:
        return None
    if found.accelerators:
        _accelerator_event(stmt, ctx, found)
    call = expr_call(stmt)
    result_target = None
    if call is None:
        assigned = assigned_call(stmt)
        if assigned is None:
            return None
        result_target, call = assigned
    summary = resolve_call(call, ctx, found)
    if summary is None or (result_target is not None and summary.result is None):
        return None
    problems = ctx.state.setdefault(PROBLEMS, {})
    kept = kept_reason(ctx, summary.key)
    if kept is not None:
        problems[id(stmt)] = f"`{summary.qualname}` stays torch code: {kept}"
        return None
    bound = bind(summary, call)
    if bound is None or summary.loss not in bound:
        problems[id(stmt)] = (
            f"the call of `{summary.qualname}` passes arguments the rule cannot bind to its parameters"
        )
        return None
    receiver = receiver_of(call, summary)
    problem = _call_problem(summary, bound)
    if problem is None:
        problem = _dry_run(summary, bound, receiver, call, ctx, found)
    if problem is not None:
        problems[id(stmt)] = problem
        return None
    problems.pop(id(stmt), None)
    name = ctx.dotted(call.func)
    if summary.qualname.endswith(".__call__") and name not in {
        **found.instances,
        **found.library_instances,
    }:
        kind = summary.qualname.rsplit(".", 1)[0]
        ctx.report(
            "TM210",
            f"assumes `{name}` is a `{kind}` (the one loss scaler this module "
            + ("imports" if summary.library else "defines")
            + f"); its callers must pass the converted `{kind}`",
            HELPER_USE,
            node=stmt,
            severity=NOTE,
        )
    loss = bound[summary.loss]
    optimizer = caller_name(summary.optimizer, summary, bound, receiver)
    scaler = caller_name(summary.scaler, summary, bound, receiver)
    synthetic = ctx.state.setdefault(SYNTHETIC, {})
    lines: list = []
    if summary.zeroes_first:
        reset = _line(cst.Call(func=cst.parse_expression(f"{optimizer}.zero_grad")))
        synthetic[id(reset)] = Event(
            "reset", reset, optimizer, call=reset.body[0].value
        )
        lines.append(reset)
    differentiated = _scaled(loss, scaler)
    if summary.choice is not None:
        differentiated = _chosen_loss(summary, bound, receiver, loss)
        if differentiated is None:
            problems[id(stmt)] = (
                f"`{summary.qualname}` chooses its backward with "
                f"`if {code_of(summary.choice[0])}:`, which reads an argument this call computes"
            )
            return None
        scaler = None
    backward = _line(cst.Call(func=cst.Attribute(differentiated, cst.Name("backward"))))
    synthetic[id(backward.body[0].value)] = Event(
        "backward",
        backward,
        call=backward.body[0].value,
        loss=differentiated,
        inner_loss=loss if scaler is not None else None,
        scaler=scaler,
    )
    lines.append(backward)
    kind = "call_step" if summary.transforms else "call_read"
    synthetic[id(call)] = Event(
        kind,
        stmt,
        optimizer,
        call=call,
        detail={
            "summary": summary,
            "bound": bound,
            "receiver": receiver,
            "found": found,
            "result_target": result_target,
        },
    )
    lines.append(stmt)
    for line in lines[:-1]:
        ctx.copy_position(line, stmt)
    return lines


def _scaled(loss: cst.BaseExpression, scaler: str | None) -> cst.BaseExpression:
    if scaler is None:
        return loss
    return cst.Call(
        func=cst.Attribute(cst.parse_expression(scaler), cst.Name("scale")),
        args=[cst.Arg(loss)],
    )


def _chosen_loss(
    summary: StepSummary, bound: dict, receiver, loss: cst.BaseExpression
) -> cst.BaseExpression | None:
    """``scaler.scale(loss) if T else loss``: what a helper that chooses its backward at run time
    differentiates, with its test written in the caller's terms (None when the test reads an
    argument that is not a plain name or literal, which would be evaluated twice)."""
    test, arms = summary.choice
    mapping: dict[str, cst.BaseExpression] = {}
    for name in names_in(test) & set(summary.params):
        value = bound.get(name)
        if value is None or not isinstance(value, _TRIVIAL):
            return None
        mapping[name] = value
    if "self" in names_in(test) and receiver is None:
        return None
    scaled = [
        _scaled(loss, caller_name(arm.scaler, arm, bound, receiver)) for arm in arms
    ]
    return cst.IfExp(
        test=test.visit(_Substitute(mapping, receiver)),
        body=scaled[0],
        orelse=scaled[1],
        lpar=[cst.LeftParen()],
        rpar=[cst.RightParen()],
    )


def _line(call: cst.Call) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Expr(call)])


def runtime_create_graph(
    summary: StepSummary, bound: dict
) -> cst.BaseExpression | None:
    """The argument a call passes as the helper's ``create_graph`` when it is neither a literal nor
    absent (DeiT's ``create_graph=is_second_order``): the rewrite holds while it is false, and the
    converted call checks it."""
    if summary.create_graph is None:
        return None
    value = bound.get(summary.create_graph)
    if value is None or code_of(value) in ("False", "True", "None", "0"):
        return None
    if isinstance(value, (cst.Integer, cst.SimpleString, cst.Float)):
        return None
    return value


def _call_problem(summary: StepSummary, bound: dict) -> str | None:
    if summary.create_graph is not None:
        value = bound.get(summary.create_graph)
        text = code_of(value) if value is not None else "False"
        if (
            text not in ("False", "None", "0")
            and runtime_create_graph(summary, bound) is None
        ):
            through = "its loss scaling" if summary.scaler else "it"
            return (
                f"`{summary.qualname}` runs a higher-order backward through {through} "
                f"(`create_graph={text}`), which gradient values do not carry"
            )
    if summary.optimizer and summary.optimizer.partition(".")[0] in summary.params:
        value = bound.get(summary.optimizer.partition(".")[0])
        if (
            value is None
            or cst.ensure_type(value, cst.BaseExpression)
            and _dotted(value) is None
        ):
            return f"the optimizer passed to `{summary.qualname}` is not a name"
    return None


def _dotted(node) -> str | None:
    return ModuleContext.dotted(node)


def _dry_run(summary, bound, receiver, call, ctx, found) -> str | None:
    if not summary.library:
        return None
    try:
        library_statements(
            summary, bound, receiver, "grads", lambda base: base, ctx, found
        )
    except StepProblem as problem:
        return f"`{summary.qualname}`: {problem}"
    return None


# -- writing a call on gradient values ------------------------------------------------------------


def emit_call(event: Event, gvar: str, namer, ctx: ModuleContext) -> list:
    detail = event.detail
    summary: StepSummary = detail["summary"]
    guard = runtime_create_graph(summary, detail["bound"])
    if guard is None:
        return _emit_call(event, gvar, namer, ctx)
    ctx.report(
        "TM210",
        f"rewritten for `create_graph={code_of(guard)}` false: the converted step raises "
        "NotImplementedError when it is true (a higher-order backward through "
        f"`{summary.qualname}` has no gradient-value form)",
        HELPER_USE,
        node=event.stmt,
        severity=WARNING,
    )
    return [second_order_guard(guard, summary), *_emit_call(event, gvar, namer, ctx)]


def second_order_guard(value: cst.BaseExpression, summary: StepSummary) -> cst.If:
    message = (
        f"create_graph=True: a higher-order backward through `{summary.qualname}` has no "
        "gradient-value form in MindSpore"
    )
    return cst.If(
        test=value,
        body=cst.IndentedBlock(
            [
                cst.SimpleStatementLine(
                    [
                        cst.Raise(
                            cst.Call(
                                func=cst.Name("NotImplementedError"),
                                args=[cst.Arg(cst.SimpleString(repr(message)))],
                            )
                        )
                    ]
                )
            ]
        ),
    )


def _emit_call(event: Event, gvar: str, namer, ctx: ModuleContext) -> list:
    detail = event.detail
    summary: StepSummary = detail["summary"]
    if summary.library:
        return library_statements(
            summary,
            detail["bound"],
            detail["receiver"],
            gvar,
            namer,
            ctx,
            detail["found"],
        )
    return [
        helper_call(
            event.call, summary, detail["bound"], gvar, detail.get("result_target")
        )
    ]


def helper_call(
    call: cst.Call,
    summary: StepSummary,
    bound: dict,
    gvar: str,
    result_target: str | None = None,
):
    """``grads = helper(grads, ...)``: the loss argument replaced by the gradients; a helper
    that returns its gradient norm gives ``grads, norm = helper(grads, ...)``."""
    loss = bound[summary.loss]
    args = [
        arg.with_changes(value=cst.Name(gvar)) if arg.value is loss else arg
        for arg in call.args
    ]
    new = call.with_changes(args=args)
    if summary.result is not None:
        target = cst.Tuple(
            [
                cst.Element(cst.Name(gvar)),
                cst.Element(cst.Name(result_target or "_")),
            ],
            lpar=[],
            rpar=[],
        )
        return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target)], new)])
    if summary.transforms:
        return cst.SimpleStatementLine(
            [cst.Assign([cst.AssignTarget(cst.Name(gvar))], new)]
        )
    return cst.SimpleStatementLine([cst.Expr(new)])


def emit_inner(site: dict, stmt, gvar: str, namer, ctx, found) -> list:
    """A helper call inside a helper being rewritten (``_backward`` calling ``loss_scaler``)."""
    summary: StepSummary = site["callee"]
    receiver = receiver_of(site["call"], summary)
    if summary.library:
        return library_statements(
            summary, site["bound"], receiver, gvar, namer, ctx, found
        )
    return [helper_call(site["call"], summary, site["bound"], gvar)]


_TRIVIAL = (cst.Name, cst.Attribute, cst.SimpleString, cst.Integer, cst.Float)


def library_statements(
    summary: StepSummary, bound: dict, receiver, gvar: str, namer, ctx, found
) -> list:
    """The statements of a library step callable after its backward, written at the call site."""
    body = list(summary.node.body.body)
    index = next(
        i
        for i, stmt in enumerate(body)
        if backward_site(stmt, ctx, found, set(summary.params)) is not None
    )
    literal = {
        name: value
        for name, value in bound.items()
        if isinstance(value, (cst.SimpleString, cst.Integer, cst.Float))
        or isinstance(value, cst.Name)
        and value.value in ("None", "True", "False")
    }
    rest = [s.visit(_Substitute(literal, None)) for s in body[index + 1 :]]
    emitter = BodyEmitter(summary, gvar, namer, _LibraryContext(ctx), found)
    emitted = emitter.body(rest)
    used = set()
    for stmt in emitted:
        stmt.visit(_Collect(used))
    before: list = []
    mapping: dict[str, cst.BaseExpression] = {}
    for name in summary.params:
        if name not in used or name in literal:
            continue
        value = bound.get(name)
        if value is None:
            continue
        if isinstance(value, _TRIVIAL):
            mapping[name] = value
        else:
            temp = namer(name)
            before.append(
                cst.SimpleStatementLine(
                    [cst.Assign([cst.AssignTarget(cst.Name(temp))], value)]
                )
            )
            mapping[name] = cst.Name(temp)
    out = [s.visit(_Substitute(mapping, receiver)) for s in emitted]
    return before + out


class _LibraryContext:
    """Name resolution inside a library template, with the module's context for the rest."""

    def __init__(self, ctx: ModuleContext) -> None:
        self.ctx = ctx
        self.statements = ctx.statements

    dotted = staticmethod(ModuleContext.dotted)

    def qualname(self, node):
        if ModuleContext.dotted(node) == "dispatch_clip_grad":
            return "timm.utils.dispatch_clip_grad"
        return None

    def copy_position(self, new, old) -> None:
        return None

    def companion(self, entry: str) -> cst.BaseExpression:
        return self.ctx.companion(entry)

    @property
    def state(self) -> dict:
        return self.ctx.state


class _Collect(cst.CSTVisitor):
    def __init__(self, names: set[str]) -> None:
        self.names = names

    def visit_Name(self, node) -> None:
        self.names.add(node.value)


class _Substitute(cst.CSTTransformer):
    """Parameters -> argument expressions, ``self`` -> the receiver; attribute names and keywords
    stay as they are."""

    def __init__(self, mapping: dict, receiver) -> None:
        self.mapping = mapping
        if receiver is not None:
            self.mapping = {**mapping, "self": receiver}

    def leave_Name(self, original, updated):
        return self.mapping.get(updated.value, updated)

    def leave_Attribute(self, original, updated):
        return updated.with_changes(attr=original.attr)

    def leave_Arg(self, original, updated):
        return updated.with_changes(keyword=original.keyword)

    def leave_Param(self, original, updated):
        return updated.with_changes(name=original.name)


def failed_call(stmt, ctx: ModuleContext, facts) -> str | None:
    """The reason a call of a helper that runs backward on its argument is left as it is."""
    problems = ctx.state.get(PROBLEMS, {})
    if id(stmt) in problems:
        return problems[id(stmt)]
    found = summaries_of(facts)
    if found is None:
        return None
    call = expr_call(stmt)
    if call is None:
        return _used_value(stmt, ctx, found)
    name = ctx.dotted(call.func)
    if name is None:
        return None
    if name in found.uncertain:
        return found.uncertain[name]
    unmapped = ctx.state.get("training.unmapped_steps", {})
    if name in unmapped:
        return f"`{name}(...)` runs backward and the optimizer step inside a library call: {unmapped[name]}"
    cls = found.instances.get(name) or assumed_class(name, found)
    candidates = [f"{cls}.__call__"] if cls else []
    candidates.append(name)
    if name.startswith("self."):
        candidates += [q for q in found.failures if q.endswith("." + name[5:])]
    candidates += [q for q in found.failures if q.rsplit(".", 1)[-1] == name]
    for qualname in candidates:
        if qualname in found.failures:
            return (
                f"`{qualname}` runs backward() on the loss it receives, but its step cannot be "
                f"summarised: {found.failures[qualname]}"
            )
    if (
        resolve_call(call, ctx, found) is None
        and not found.step_classes
        and "scaler" in name.rsplit(".", 1)[-1].lower()
        and len(call.args) >= 2
        and all(a.keyword is None for a in call.args[:2])
    ):
        return (
            f"`{name}(...)` looks like a loss-scaler step (NativeScaler-style: it receives the "
            "loss and the optimizer) whose definition is not in this file, so the backward and "
            "the optimizer step it runs cannot be followed from here"
        )
    return None


def first_backward(stmt) -> bool:
    return expr_call(stmt) is not None


def _used_value(stmt, ctx: ModuleContext, found: Summaries) -> str | None:
    """A helper call whose value is used (``result = step(loss, opt)``): it cannot become a call
    with gradients."""
    assigned = assigned_call(stmt)
    for node in _calls_in(stmt):
        summary = resolve_call(node, ctx, found)
        bound = bind(summary, node) if summary is not None else None
        if (
            assigned is not None
            and assigned[1] is node
            and summary is not None
            and summary.result is not None
        ):
            continue  # ``norm = scaler(loss, ...)``: the value it returns is a gradient norm
        if summary is not None and bound is not None and summary.loss in bound:
            return (
                f"the value of this call of `{summary.qualname}` is used, and the call runs "
                "backward() on the loss it passes; only a call standing as a statement is rewritten"
            )
    return None


def _calls_in(stmt) -> list[cst.Call]:
    calls: list[cst.Call] = []

    class _Calls(cst.CSTVisitor):
        def visit_Call(self, node) -> None:
            calls.append(node)

    visit(stmt, _Calls())
    return calls


def _accelerator_event(stmt, ctx: ModuleContext, found: Summaries) -> None:
    """``accelerator.backward(loss)`` is a backward of ``loss``; ``accelerator.clip_grad_norm_(p,
    n)`` clips as torch's does (a plain accelerator: see ``library_steps.accelerators``)."""
    from .events import _call_of, _parameters_owner

    small = (
        stmt.body[0]
        if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
        else None
    )
    call, target = _call_of(small)
    if call is None or not isinstance(call.func, cst.Attribute):
        return
    receiver = ctx.dotted(call.func.value)
    if receiver not in found.accelerators:
        return
    method = call.func.attr.value
    if method not in ("backward", "clip_grad_norm_"):
        return
    reason = found.accelerators[receiver]
    problems = ctx.state.setdefault(PROBLEMS, {})
    if reason is not None:
        problems[id(stmt)] = f"`{receiver}.{method}(...)`: {reason}"
        return
    synthetic = ctx.state.setdefault(SYNTHETIC, {})
    positional = [a for a in call.args if a.keyword is None]
    if method == "backward" and target is None and len(call.args) == 1 and positional:
        loss = positional[0].value
        synthetic[id(call)] = Event("backward", stmt, call=call, loss=loss)
    elif method == "clip_grad_norm_" and len(positional) >= 2:
        model = _parameters_owner(positional[0].value, ctx)
        synthetic[id(call)] = Event(
            "clip_norm", stmt, model, call=call, assign_to=target
        )
    else:
        problems[id(stmt)] = (
            f"`{receiver}.{method}(...)` takes arguments the rule does not map"
        )
