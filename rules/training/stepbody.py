"""The statements of a summarised helper after its backward, on gradient values.

Used twice: a helper of the module is rewritten to take ``grads`` in place of the loss, and a library
step callable (``NativeScaler``) is written out at its call site. Unscale, clip, the ``all_finite``
check, the optimizer call and the scale update keep torch's order (seed 003); ``scaler.step``
unscales only what ``unscale_`` has not, as torch's GradScaler does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import libcst as cst

from ...migrator.context import ModuleContext
from . import emit
from .events import CLIP_NORM, CLIP_VALUE
from .summaries import (
    DISPATCH_CLIP,
    StepSummary,
    assigned_call,
    backward_site,
    expr_call,
)
from .summary_events import clip_bound, imported_name

REWRITTEN_IMPORTS = "training.rewritten_imports"


class StepProblem(Exception):
    """The body cannot be written on gradient values; the message says why."""


class BodyEmitter:
    def __init__(
        self,
        summary: StepSummary,
        gvar: str,
        namer: Callable[[str], str],
        ctx: ModuleContext,
        found,
        emit_site: Callable | None = None,
    ) -> None:
        self.summary, self.gvar, self.namer, self.ctx = summary, gvar, namer, ctx
        self.found = found
        self.emit_site = emit_site  # writes an inner helper call on ``gvar``
        self.finite: str | None = None
        self.unscaled: str | None = None
        self.mixed = False

    # -- the body ---------------------------------------------------------------------------------
    def body(self, stmts: Sequence[cst.BaseStatement]) -> list[cst.BaseStatement]:
        stmts = _fold(stmts)
        self.mixed = _unscale_nested(stmts, self)
        out = self.block(stmts, depth=0)
        if self.mixed:
            self.unscaled = self.unscaled or self.namer("grads_unscaled")
            out.insert(0, emit.template("__U__ = False", U=self.unscaled))
        return out

    def block(self, stmts, depth: int) -> list[cst.BaseStatement]:
        out: list[cst.BaseStatement] = []
        for stmt in stmts:
            new = self.statement(stmt, depth)
            if (
                new
                and stmt.leading_lines
                and isinstance(new[0], cst.SimpleStatementLine | cst.If)
            ):
                new[0] = new[0].with_changes(leading_lines=stmt.leading_lines)
            for node in new:
                self.ctx.copy_position(node, stmt)
            out.extend(new)
        return out

    def statement(self, stmt, depth: int) -> list[cst.BaseStatement]:
        if isinstance(stmt, cst.If):
            return self._if(stmt, depth)
        assigned = assigned_call(stmt)
        if assigned is not None and assigned[0] in self.summary.result_names:
            return self._result(stmt, *assigned)
        call = expr_call(stmt)
        if call is None:
            return [stmt]
        site = backward_site(stmt, self.ctx, self.found, set(self.summary.params))
        if site is not None and not site.get("direct"):
            if self.emit_site is None:
                raise StepProblem("a helper call inside a library step")
            return self.emit_site(site, stmt, self.gvar)
        func = call.func
        qualified = (
            self.ctx.qualname(func)
            or imported_name(self.ctx, func)
            or self.ctx.dotted(func)
            or ""
        )
        g = self.gvar
        if (
            qualified in CLIP_NORM
            or qualified in CLIP_VALUE
            or qualified in DISPATCH_CLIP
        ):
            return self._clip(call, qualified)
        attr = func.attr.value if isinstance(func, cst.Attribute) else ""
        receiver = (
            self.ctx.dotted(func.value) if isinstance(func, cst.Attribute) else None
        )
        scaler = self.summary.scaler
        if receiver is not None and receiver == scaler:
            if attr == "unscale_":
                out = [emit.unscale(g, scaler)]
                if self.mixed:
                    self.unscaled = self.unscaled or self.namer("grads_unscaled")
                    out.append(emit.template("__U__ = True", U=self.unscaled))
                return out
            if attr == "step":
                optimizer = self.ctx.dotted(call.args[0].value)
                out = []
                if self.mixed:
                    self.unscaled = self.unscaled or self.namer("grads_unscaled")
                    out.append(
                        cst.If(
                            test=cst.UnaryOperation(cst.Not(), cst.Name(self.unscaled)),
                            body=cst.IndentedBlock([emit.unscale(g, scaler)]),
                        )
                    )
                elif not self._unscaled_before:
                    out.append(emit.unscale(g, scaler))
                self.finite = self.finite or self.namer("grads_finite")
                return out + emit.finite_step(optimizer, g, self.finite)
            if attr == "update":
                self.finite = self.finite or self.namer("grads_finite")
                return [emit.adjust(scaler, self.finite)]
        if attr == "step" and receiver is not None:
            return [emit.step(receiver, g)]
        if attr == "zero_grad" and receiver is not None:
            return [emit.zeros(g, emit.name(receiver + ".parameters"))]
        if attr == "backward":
            return []
        return [stmt]

    _unscaled_before = False

    def _result(self, stmt, name: str, call: cst.Call) -> list[cst.BaseStatement]:
        """``norm = clip_grad_norm_(parameters, c)``: the clipping, and the norm it measured;
        ``norm = grad_norm(parameters)``: the function given the gradients, each where it reads
        a parameter's ``.grad``."""
        qualified = (
            self.ctx.qualname(call.func)
            or imported_name(self.ctx, call.func)
            or self.ctx.dotted(call.func)
            or ""
        )
        if qualified in CLIP_NORM:
            measured = self.namer("grad_norm")
            lines = emit.clip_norm_exact(
                self.gvar, clip_bound(call, qualified), measured
            )
            return [*lines, emit.template("__N__ = __M__", N=name, M=measured)]
        holders = cst.Call(
            func=self.ctx.companion("grad_holders"), args=[cst.Arg(cst.Name(self.gvar))]
        )
        args = [call.args[0].with_changes(value=holders), *call.args[1:]]
        value = call.with_changes(args=args)
        return [
            stmt.with_changes(
                body=[cst.Assign([cst.AssignTarget(cst.Name(name))], value)]
            )
        ]

    def _if(self, stmt: cst.If, depth: int) -> list[cst.BaseStatement]:
        folded = _constant(stmt.test)
        if folded is True:
            return self.block(stmt.body.body, depth)
        if folded is False:
            return (
                self.block(stmt.orelse.body.body, depth)
                if stmt.orelse is not None
                else []
            )
        body = self.block(stmt.body.body, depth + 1) or [
            cst.SimpleStatementLine([cst.Pass()])
        ]
        new = stmt.with_changes(body=stmt.body.with_changes(body=body))
        if isinstance(stmt.orelse, cst.Else):
            orelse = self.block(stmt.orelse.body.body, depth + 1) or [
                cst.SimpleStatementLine([cst.Pass()])
            ]
            new = new.with_changes(
                orelse=stmt.orelse.with_changes(
                    body=stmt.orelse.body.with_changes(body=orelse)
                )
            )
        return [new]

    def _clip(self, call: cst.Call, qualified: str) -> list[cst.BaseStatement]:
        bound = clip_bound(call, qualified)
        if bound is None:
            raise StepProblem("its clipping bound could not be read")
        positional = [a.value for a in call.args if a.keyword is None]
        keywords = {
            a.keyword.value: a.value for a in call.args if a.keyword is not None
        }
        mode: cst.BaseExpression | str = "value" if qualified in CLIP_VALUE else "norm"
        norm_type = keywords.get("norm_type")
        if qualified in DISPATCH_CLIP:
            given = keywords.get("mode", positional[2] if len(positional) > 2 else None)
            if given is not None:
                mode = (
                    given.evaluated_value
                    if isinstance(given, cst.SimpleString)
                    else given
                )
            if norm_type is None and len(positional) > 3:
                norm_type = positional[3]
        elif qualified in CLIP_NORM and norm_type is None and len(positional) > 2:
            norm_type = positional[2]
        if qualified in DISPATCH_CLIP and isinstance(call.func, cst.Name):
            # ``from timm.utils import dispatch_clip_grad``: the import goes with its last call
            self.ctx.state.setdefault(REWRITTEN_IMPORTS, set()).add(call.func.value)
        if isinstance(mode, str) and norm_type is None:
            if mode == "norm":
                return emit.clip_norm_exact(self.gvar, bound, self.namer("grad_norm"))
            if mode == "value":
                return [emit.clip_value(self.gvar, bound)]
        return [self._clip_at_run_time(call, bound, mode, norm_type)]

    def _clip_at_run_time(self, call, bound, mode, norm_type) -> cst.BaseStatement:
        """``G = ms_aux.clip_grads(G, optimizer.parameters, parameters, bound, mode, norm_type)``:
        a clipping whose mode is chosen at run time (``clip_mode``), adaptive (``agc``), or with a
        norm type other than 2, on the gradients of the parameters the call names."""
        optimizer = self.summary.optimizer
        if not optimizer:
            raise StepProblem("it clips before the rule knows which optimizer it steps")
        parameters = next(
            (
                a.value
                for a in call.args
                if a.keyword and a.keyword.value == "parameters"
            ),
            call.args[0].value if call.args and call.args[0].keyword is None else None,
        )
        if parameters is None:
            raise StepProblem("its clipped parameters could not be read")
        mode_node = cst.SimpleString(repr(mode)) if isinstance(mode, str) else mode
        args = [
            cst.Name(self.gvar),
            emit.name(optimizer + ".parameters"),
            parameters,
            bound,
            mode_node,
            norm_type if norm_type is not None else cst.Float("2.0"),
        ]
        value = cst.Call(
            func=self.ctx.companion("clip_grads"), args=[cst.Arg(a) for a in args]
        )
        return cst.SimpleStatementLine(
            [cst.Assign([cst.AssignTarget(cst.Name(self.gvar))], value)]
        )


def _fold(stmts) -> list:
    """The statements with the branches that literals decide (``if None is not None:``) resolved."""
    out: list = []
    for stmt in stmts:
        if isinstance(stmt, cst.If):
            decided = _constant(stmt.test)
            if decided is True:
                out.extend(_fold(stmt.body.body))
                continue
            if decided is False:
                if isinstance(stmt.orelse, cst.Else):
                    out.extend(_fold(stmt.orelse.body.body))
                continue
            body = _fold(stmt.body.body) or [cst.SimpleStatementLine([cst.Pass()])]
            stmt = stmt.with_changes(body=stmt.body.with_changes(body=body))
        out.append(stmt)
    return out


def _constant(test: cst.BaseExpression) -> bool | None:
    """A test decided by literals alone: ``None is not None``, ``True``, ``False``."""
    if isinstance(test, cst.Name) and test.value in ("True", "False"):
        return test.value == "True"
    if (
        isinstance(test, cst.Comparison)
        and len(test.comparisons) == 1
        and isinstance(test.left, cst.Name)
        and test.left.value == "None"
        and isinstance(test.comparisons[0].comparator, cst.Name)
        and test.comparisons[0].comparator.value == "None"
    ):
        operator = test.comparisons[0].operator
        if isinstance(operator, cst.IsNot):
            return False
        if isinstance(operator, cst.Is):
            return True
    return None


def _unscale_nested(stmts, emitter: BodyEmitter) -> bool:
    """Whether an ``unscale_`` sits in a branch that ``scaler.step`` does not share (then the
    gradients reach the step unscaled on some paths only, and a flag records which)."""
    scaler = emitter.summary.scaler
    if scaler is None:
        return False
    found: list[tuple[str, tuple]] = []

    def walk(block, path: tuple) -> None:
        for i, stmt in enumerate(block):
            if isinstance(stmt, cst.If):
                walk(stmt.body.body, (*path, (id(stmt), "body")))
                if isinstance(stmt.orelse, cst.Else):
                    walk(stmt.orelse.body.body, (*path, (id(stmt), "else")))
                continue
            call = expr_call(stmt)
            if call is None or not isinstance(call.func, cst.Attribute):
                continue
            if emitter.ctx.dotted(call.func.value) != scaler:
                continue
            if call.func.attr.value in ("unscale_", "step"):
                found.append((call.func.attr.value, path))

    walk(stmts, ())
    steps = [p for kind, p in found if kind == "step"]
    unscales = [p for kind, p in found if kind == "unscale_"]
    if not unscales:
        return False
    if all(u == s[: len(u)] for u in unscales for s in steps):
        emitter._unscaled_before = True
        return False
    return True
