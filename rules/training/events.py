"""Gradient-state events: the statements that reset, add to, transform or consume ``.grad``.

| statement | event |
| --- | --- |
| `opt.zero_grad()`, `model.zero_grad()` | reset |
| `loss.backward()`, `scaler.scale(loss).backward()` | backward |
| `clip_grad_norm_(m.parameters(), c)`, `clip_grad_value_`, `scaler.unscale_(opt)` | transform |
| `opt.step()`, `scaler.step(opt)`, `for p in m.parameters(): p.data.add_(p.grad, alpha=-lr)` | read |
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.engine import visit
from .facts import ModuleFacts, _looks_like_optimizer

CLIP_NORM = frozenset(
    {
        "torch.nn.utils.clip_grad_norm_",
        "torch.nn.utils.clip_grad_norm",
        "torch.nn.utils.clip_grad.clip_grad_norm_",
    }
)
CLIP_VALUE = frozenset(
    {"torch.nn.utils.clip_grad_value_", "torch.nn.utils.clip_grad.clip_grad_value_"}
)
# ``call_read``/``call_step``: the call of a summarised helper that steps (and changes) G.
READS = frozenset({"step", "scaler_step", "manual", "call_read"})
TRANSFORMS = frozenset({"clip_norm", "clip_value", "unscale", "call_step"})
SYNTHETIC = "training.synthetic_events"


@dataclass(eq=False)
class Event:
    kind: str
    stmt: cst.CSTNode
    target: str | None = (
        None  # the optimizer (or model, for model.zero_grad / clipping / manual updates)
    )
    loss: cst.BaseExpression | None = None  # what backward() differentiates
    inner_loss: cst.BaseExpression | None = None  # the loss inside scaler.scale(...)
    scaler: str | None = None
    call: cst.Call | None = None
    assign_to: cst.BaseAssignTargetExpression | None = None
    retain_graph: bool = False
    psets: tuple[str, ...] = ()  # resolved parameter sets
    detail: dict = field(default_factory=dict)


def _single(stmt: cst.CSTNode) -> cst.BaseSmallStatement | None:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        return stmt.body[0]
    return None


def _call_of(
    small: cst.BaseSmallStatement | None,
) -> tuple[cst.Call | None, cst.BaseAssignTargetExpression | None]:
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        return small.value, None
    if (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.value, cst.Call)
    ):
        return small.value, small.targets[0].target
    return None, None


def is_scaler(name: str | None, facts: ModuleFacts) -> bool:
    return name is not None and (
        name in facts.scalers or "scaler" in name.rsplit(".", 1)[-1].lower()
    )


def is_scheduler(name: str, facts: ModuleFacts) -> bool:
    return name in facts.schedulers or "sched" in name.rsplit(".", 1)[-1].lower()


def is_optimizer(name: str, facts: ModuleFacts) -> bool:
    return name in facts.optimizers or (
        _looks_like_optimizer(name) and not is_scheduler(name, facts)
    )


def event_of(stmt: cst.CSTNode, ctx: ModuleContext, facts: ModuleFacts) -> Event | None:
    """The event a simple statement is, if any."""
    small = _single(stmt)
    synthetic = ctx.state.get(SYNTHETIC)
    if synthetic and isinstance(small, (cst.Expr, cst.Assign)):
        made = synthetic.get(id(small.value))
        if made is not None and made.call is small.value:
            return replace(made, stmt=stmt, psets=(), detail=dict(made.detail))
    call, target = _call_of(small)
    if call is None:
        return None
    func = call.func
    qualified = ctx.qualname(func)
    if qualified in CLIP_NORM or qualified in CLIP_VALUE:
        model = _parameters_owner(call.args[0].value, ctx) if call.args else None
        return Event(
            "clip_norm" if qualified in CLIP_NORM else "clip_value",
            stmt,
            model,
            call=call,
            assign_to=target,
        )
    if not isinstance(func, cst.Attribute) or qualified is not None:
        return None
    attr = func.attr.value
    receiver = ctx.dotted(func.value)
    if attr == "backward" and target is None:
        return _backward(stmt, call, func.value, ctx, facts)
    if receiver is None or target is not None:
        return None
    if attr == "zero_grad":
        return Event("reset", stmt, receiver, call=call)
    if attr == "step" and is_scaler(receiver, facts):
        opt = ctx.dotted(call.args[0].value) if len(call.args) == 1 else None
        return Event("scaler_step", stmt, opt, scaler=receiver, call=call)
    if attr == "update" and is_scaler(receiver, facts) and not call.args:
        return Event("scaler_update", stmt, None, scaler=receiver, call=call)
    if attr == "unscale_" and is_scaler(receiver, facts) and len(call.args) == 1:
        return Event(
            "unscale", stmt, ctx.dotted(call.args[0].value), scaler=receiver, call=call
        )
    if attr == "step" and is_optimizer(receiver, facts):
        if call.args:
            return Event("closure_step", stmt, receiver, call=call)
        return Event("step", stmt, receiver, call=call)
    return None


def _backward(
    stmt,
    call: cst.Call,
    receiver: cst.BaseExpression,
    ctx: ModuleContext,
    facts: ModuleFacts,
) -> Event:
    retain = False
    for arg in call.args:
        keyword = arg.keyword.value if arg.keyword else None
        if keyword == "retain_graph":
            retain = True
            continue
        return Event("backward_other", stmt, call=call, loss=receiver)
    inner = None
    scaler = None
    if (
        isinstance(receiver, cst.Call)
        and isinstance(receiver.func, cst.Attribute)
        and receiver.func.attr.value == "scale"
    ):
        name = ctx.dotted(receiver.func.value)
        if (
            is_scaler(name, facts)
            and len(receiver.args) == 1
            and receiver.args[0].keyword is None
        ):
            inner, scaler = receiver.args[0].value, name
    return Event(
        "backward",
        stmt,
        call=call,
        loss=receiver,
        inner_loss=inner,
        scaler=scaler,
        retain_graph=retain,
    )


def _parameters_owner(expr: cst.BaseExpression, ctx: ModuleContext) -> str | None:
    """``M`` for ``M.parameters()`` (also inside ``list(...)``)."""
    if (
        isinstance(expr, cst.Call)
        and ctx.dotted(expr.func) == "list"
        and len(expr.args) == 1
    ):
        expr = expr.args[0].value
    if (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Attribute)
        and expr.func.attr.value in ("parameters", "trainable_params")
        and not expr.args
    ):
        return ctx.dotted(expr.func.value)
    return None


# -- manual updates through p.grad ---------------------------------------------------------------


class _FindGrad(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        if node.attr.value == "grad":
            self.found = True
        return not self.found


def mentions_grad(node: cst.CSTNode) -> bool:
    finder = _FindGrad()
    visit(node, finder)
    return finder.found


def manual_update_of(stmt: cst.CSTNode, ctx: ModuleContext) -> Event | None:
    """``for p in M.parameters(): p.data.add_(p.grad, alpha=-lr)`` (optionally under ``torch.no_grad()``)."""
    loop = stmt
    wrapped = False
    if (
        isinstance(stmt, cst.With)
        and len(stmt.items) == 1
        and isinstance(stmt.body, cst.IndentedBlock)
        and len(stmt.body.body) == 1
    ):
        item = stmt.items[0].item
        if ctx.qualname(item.func if isinstance(item, cst.Call) else item) in (
            "torch.no_grad",
            "torch.inference_mode",
        ):
            loop, wrapped = stmt.body.body[0], True
    if (
        not isinstance(loop, cst.For)
        or not isinstance(loop.target, cst.Name)
        or loop.orelse is not None
    ):
        return None
    model = _parameters_owner(loop.iter, ctx)
    if (
        model is None
        or not isinstance(loop.body, cst.IndentedBlock)
        or not mentions_grad(loop.body)
    ):
        return None
    param = loop.target.value
    updates: list[cst.BaseExpression] = []
    reset = False
    for inner in loop.body.body:
        small = _single(inner)
        if small is None:
            return None
        if _is_grad_reset(small, param, ctx):
            reset = True
            continue
        new = _update_value(small, param, ctx)
        if new is None:
            return None
        updates.append(new)
    if not updates:
        return None
    return Event(
        "manual",
        stmt,
        model,
        detail={"param": param, "updates": updates, "reset": reset, "wrapped": wrapped},
    )


def _is_param(node: cst.BaseExpression, param: str) -> bool:
    """``p`` or ``p.data``."""
    if isinstance(node, cst.Attribute) and node.attr.value == "data":
        node = node.value
    return isinstance(node, cst.Name) and node.value == param


def _is_grad_reset(small, param: str, ctx: ModuleContext) -> bool:
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        target = small.targets[0].target
        return (
            _is_grad(target, param)
            and isinstance(small.value, cst.Name)
            and small.value.value == "None"
        )
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        func = small.value.func
        return (
            isinstance(func, cst.Attribute)
            and func.attr.value == "zero_"
            and _is_grad(func.value, param)
        )
    return False


def _is_grad(node, param: str) -> bool:
    if isinstance(node, cst.Attribute) and node.attr.value == "data":
        node = node.value
    return (
        isinstance(node, cst.Attribute)
        and node.attr.value == "grad"
        and isinstance(node.value, cst.Name)
        and node.value.value == param
    )


class _Substitute(cst.CSTTransformer):
    """``p.grad``/``p.grad.data`` -> ``g``; ``p.data`` -> ``p``; fails on any other ``.grad``."""

    def __init__(self, param: str, grad: str) -> None:
        self.param, self.grad, self.ok = param, grad, True

    def leave_Attribute(self, original, updated):
        if _is_grad(original, self.param):
            return cst.Name(self.grad)
        if original.attr.value == "grad":
            self.ok = False
        if (
            original.attr.value == "data"
            and isinstance(updated.value, cst.Name)
            and updated.value.value == self.param
        ):
            return updated.value
        return updated


def substitute(
    expr: cst.BaseExpression, param: str, grad: str
) -> cst.BaseExpression | None:
    visitor = _Substitute(param, grad)
    new = expr.visit(visitor)
    return new if visitor.ok else None


def _update_value(small, param: str, ctx: ModuleContext) -> cst.BaseExpression | None:
    """The new value of ``p`` an update statement computes, in terms of ``p`` and ``__grad__``."""
    p = cst.Name(param)
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        call = small.value
        func = call.func
        if not isinstance(func, cst.Attribute) or not _is_param(func.value, param):
            return None
        method = func.attr.value
        positional = [a.value for a in call.args if a.keyword is None]
        alpha = next(
            (a.value for a in call.args if a.keyword and a.keyword.value == "alpha"),
            None,
        )
        if method in ("add_", "sub_") and len(positional) == 2 and alpha is None:
            alpha, other = positional  # the deprecated add_(scalar, tensor) form
        elif method in ("add_", "sub_") and len(positional) == 1:
            other = positional[0]
        else:
            return None
        other = substitute(other, param, "__grad__")
        if other is None:
            return None
        return _combine(p, "+" if method == "add_" else "-", other, alpha)
    if (
        isinstance(small, cst.AugAssign)
        and _is_param(small.target, param)
        and isinstance(small.operator, (cst.AddAssign, cst.SubtractAssign))
    ):
        other = substitute(small.value, param, "__grad__")
        if other is None:
            return None
        return _combine(
            p, "+" if isinstance(small.operator, cst.AddAssign) else "-", other, None
        )
    if (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and _is_param(small.targets[0].target, param)
    ):
        return substitute(small.value, param, "__grad__")
    return None


def _combine(
    p: cst.Name, sign: str, other: cst.BaseExpression, alpha: cst.BaseExpression | None
) -> cst.BaseExpression:
    if alpha is not None:
        if isinstance(alpha, cst.UnaryOperation) and isinstance(
            alpha.operator, cst.Minus
        ):
            sign = "-" if sign == "+" else "+"
            alpha = alpha.expression
        other = cst.BinaryOperation(_paren(alpha), cst.Multiply(), _paren(other))
    elif isinstance(other, (cst.BinaryOperation, cst.BooleanOperation)) and sign == "-":
        other = _paren(other)
    operator = cst.Add() if sign == "+" else cst.Subtract()
    return cst.BinaryOperation(p, operator, other)


def _paren(expr: cst.BaseExpression) -> cst.BaseExpression:
    if (
        isinstance(
            expr,
            (
                cst.BinaryOperation,
                cst.BooleanOperation,
                cst.UnaryOperation,
                cst.IfExp,
                cst.Lambda,
            ),
        )
        and not expr.lpar
    ):
        return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return expr
