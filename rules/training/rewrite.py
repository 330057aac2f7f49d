"""Apply a plan: forward regions become ``forward_fn`` + ``grad_fn``, the events become statements on
explicit gradient values."""

from __future__ import annotations

import ast

import libcst as cst

from ...migrator.context import ModuleContext
from ..common.dataflow import fresh_name, usage
from ..common.unwrap import first_position
from . import emit
from .analysis import Plan
from .events import Event
from .scope import Region, _compound_targets, loop_target_names

AUTOCAST = frozenset(
    {
        "torch.autocast",
        "torch.cuda.amp.autocast",
        "torch.amp.autocast",
        "torch.cpu.amp.autocast",
    }
)


def suffix_of(pset: str) -> str:
    last = pset.rsplit(".", 1)[-1]
    lowered = last.lower()
    if lowered in ("optimizer", "optim", "opt"):
        return last
    for prefix in ("optimizer", "optim", "opt"):
        if lowered.startswith(prefix) and len(last) > len(prefix):
            return last[len(prefix) :].strip("_")
        if lowered.endswith(prefix) and len(last) > len(prefix):
            return last[: -len(prefix)].strip("_")
    return last


class Namer:
    def __init__(self, taken: set[str]) -> None:
        self.taken = set(taken)

    def __call__(self, base: str) -> str:
        chosen = fresh_name(base, self.taken)
        self.taken.add(chosen)
        return chosen


def apply(plan: Plan, ctx: ModuleContext) -> list[cst.BaseStatement]:
    emit.POSITION = ctx.copy_position
    try:
        return _apply(plan, ctx)
    finally:
        emit.POSITION = None


def _apply(plan: Plan, ctx: ModuleContext) -> list[cst.BaseStatement]:
    scope = plan.scope
    taken = set(ctx.bound_names) | set(scope.reads())
    namer = Namer(taken)
    live = plan.live
    many = len(plan.psets) > 1
    sfx = {p: ("_" + suffix_of(p) if many else "") for p in plan.psets}
    absorbed = {id(e.stmt) for r in plan.regions for e in r.backwards[1:]}
    accumulating = {
        p
        for (key, p), zero in live.zero_mode.items()
        if not zero and key not in absorbed and (("bw", key), p) in live.needed
    }
    accumulating |= {p for (source, p) in live.needed if source[0] == "reset"} | set(
        live.init_read
    )
    plan.accumulating = accumulating
    gvar = {
        p: namer(("accum_grads" if p in accumulating else "grads") + sfx[p])
        for p in plan.psets
    }
    call_grads = {
        p: namer("grads" + sfx[p]) if p in accumulating else gvar[p] for p in plan.psets
    }
    weights = {
        p: (
            emit.template("__M__.trainable_params()", M=p).body[0].value
            if p in plan.manual
            else emit.name(p + ".parameters")
        )
        for p in plan.psets
    }
    replace: dict[int, list] = {}
    before: dict[int, list] = {}
    orelse: dict[int, list] = {}
    after: dict[int, list] = {}
    per_pset: dict[str, int] = {}
    for region in plan.regions:
        per_pset[region.pset] = per_pset.get(region.pset, 0) + 1
    counters: dict[str, int] = {}
    hoisted: dict[str, cst.CSTNode] = {}
    for region in plan.regions:
        p = region.pset
        if len(plan.regions) == 1:
            rsfx = ""
        else:
            counters[p] = counters.get(p, 0) + 1
            rsfx = "_" + suffix_of(p) + (str(counters[p]) if per_pset[p] > 1 else "")
        if region.sites is not None:
            _apply_shared(region, plan, ctx, rsfx, namer, weights, gvar, call_grads)
            _shared_maps(region, replace, before, orelse, after, hoisted, plan, weights)
            continue
        fn, grad_fn = namer("forward_fn" + rsfx), namer("grad_fn" + rsfx)
        first_target = region.first_name or "_"
        outputs = [region.first] + [cst.Name(a) for a in region.aux]
        body = _region_body(region, ctx)
        definition = emit.forward_def(fn, region.params, body, outputs)
        make = emit.value_and_grad(grad_fn, fn, weights[p], bool(region.aux))
        zero_mode = live.zero_mode.get((id(region.backwards[0].stmt), p), False)
        target = gvar[p] if zero_mode else call_grads[p]
        pullback: list = []
        if len(region.joint) > 1:
            joint_weights = weights[region.joint[0]]
            for other in region.joint[1:]:
                joint_weights = cst.BinaryOperation(
                    joint_weights, cst.Add(), weights[other]
                )
            make = emit.value_and_grad(grad_fn, fn, joint_weights, bool(region.aux))
            target = namer("grads")
            pullback = emit.split(
                target, [(gvar[q], q + ".parameters") for q in region.joint]
            )
        if region.vjp_stmt is not None:
            name = region.vjp_name
            vjp_fn, input_grads = namer(name + "_vjp"), namer("grads_" + name)
            make = emit.value_and_grad_input(grad_fn, fn, bool(region.aux))
            replace[id(region.vjp_stmt)] = [
                emit.vjp(
                    name, vjp_fn, region.vjp_stmt.body[0].value, weights[p]
                ).with_changes(leading_lines=region.vjp_stmt.leading_lines)
            ]
            pullback = [emit.pullback(vjp_fn, input_grads, target)]
            target = input_grads
        call = emit.grad_call(
            grad_fn, region.params, [first_target, *region.aux], target
        )
        call = call.with_changes(
            leading_lines=getattr(region.call_at, "leading_lines", ())
        )
        ctx.copy_position(call, region.call_at)
        for stmt in region.stmts:
            if id(stmt) not in region.copies:
                replace[id(stmt)] = []
        deferred = _deferred(region)
        for stmt in region.deferred:
            replace[id(stmt)] = []
        hoist = _hoist_point(region, plan, weights[p])
        if hoist is None:
            replace[id(region.call_at)] = [definition, make, call, *pullback, *deferred]
        else:
            before.setdefault(id(hoist), []).extend([definition, make])
            hoisted.setdefault(p, hoist)
            if id(region.call_at) in region.copies:
                before.setdefault(id(region.call_at), []).extend([call, *pullback])
            else:
                replace[id(region.call_at)] = [call, *pullback, *deferred]
        last = region.backwards[-1]
        for event in region.backwards:
            if event.stmt is not region.call_at:
                replace[id(event.stmt)] = []
        if not zero_mode:
            replace.setdefault(id(last.stmt), []).append(
                emit.accumulate(gvar[p], call_grads[p])
            )
    for p in [q for q in plan.psets if q in live.init_read]:
        anchor = hoisted.get(p)
        zeros = emit.zeros(gvar[p], weights[p])
        if anchor is not None:
            before.setdefault(id(anchor), []).append(zeros)
        else:
            first = next(r for r in plan.regions if r.pset == p)
            replace.setdefault(id(first.call_at), []).insert(0, zeros)
    unbound = [n for r in plan.regions for n in r.maybe_unbound]
    if unbound and scope.body:
        anchor = scope.body[_after_docstring(scope.body)]
        for name in dict.fromkeys(unbound):
            before.setdefault(id(anchor), []).insert(
                0, emit.template("__N__ = None", N=name)
            )
    finite: dict[str, str] = {}
    for event in plan.events.values():
        if id(event.stmt) not in plan.flow.visited:
            continue
        new = _event(event, plan, gvar, weights, namer, finite, ctx)
        if new is not None:
            replace[id(event.stmt)] = new
    return emit.rebuild(scope.body, replace, before, orelse, after)


def _after_docstring(body) -> int:
    for i, stmt in enumerate(body):
        if (
            isinstance(stmt, cst.SimpleStatementLine)
            and isinstance(stmt.body[0], cst.Expr)
            and isinstance(
                stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString)
            )
            and i == 0
        ):
            continue
        if (
            isinstance(stmt, cst.SimpleStatementLine)
            and isinstance(stmt.body[0], cst.ImportFrom)
            and stmt.body[0].module is not None
            and cst.Module([]).code_for_node(stmt.body[0].module) == "__future__"
        ):
            continue
        return i
    return 0


def _event(event: Event, plan: Plan, gvar, weights, namer, finite, ctx) -> list | None:
    kind = event.kind
    live = plan.live
    if kind == "reset":
        needed = [
            p for p in event.psets if (("reset", id(event.stmt)), p) in live.needed
        ]
        return [emit.zeros(gvar[p], weights[p]) for p in needed]
    if kind == "step":
        return [emit.step(event.target, gvar[event.psets[0]])]
    if kind == "unscale":
        return [emit.unscale(gvar[event.psets[0]], event.scaler)]
    if kind == "scaler_step":
        out: list = []
        if not event.detail.get("unscaled"):
            out.append(emit.unscale(gvar[event.psets[0]], event.scaler))
        name = finite.setdefault(event.scaler, namer("grads_finite"))
        return out + emit.finite_step(event.target, gvar[event.psets[0]], name)
    if kind == "scaler_update":
        name = finite.setdefault(event.scaler, namer("grads_finite"))
        return [emit.adjust(event.scaler, name)]
    if kind == "clip_norm":
        p = event.psets[0]
        args = event.call.args
        max_norm = _arg(args, 1, "max_norm")
        norm_type = _arg(args, 2, "norm_type")
        if norm_type is not None and not _is_two(norm_type):
            return None
        if (
            event.assign_to is None
            and _literal(max_norm) is not None
            and _literal(max_norm) >= 0.01
        ):
            return [emit.clip_global_norm(gvar[p], max_norm)]
        norm = (
            event.assign_to.value
            if isinstance(event.assign_to, cst.Name)
            else namer("grad_norm")
        )
        return emit.clip_norm_exact(gvar[p], max_norm, norm)
    if kind == "clip_value":
        p = event.psets[0]
        return [emit.clip_value(gvar[p], _arg(event.call.args, 1, "clip_value"))]
    if kind == "manual":
        p = event.psets[0]
        param = event.detail["param"]
        grad = namer("grad")
        values = [v.visit(_Rename("__grad__", grad)) for v in event.detail["updates"]]
        out = [emit.manual_update(param, grad, weights[p], gvar[p], values)]
        if event.detail.get("reset") and (("reset", id(event.stmt)), p) in live.needed:
            out.append(emit.zeros(gvar[p], weights[p]))
        return out
    if kind in ("call_step", "call_read"):
        from .callsite import emit_call

        return emit_call(event, gvar[event.psets[0]], namer, ctx)
    return None


class _Rename(cst.CSTTransformer):
    def __init__(self, old: str, new: str) -> None:
        self.old, self.new = old, new

    def leave_Name(self, original, updated):
        return (
            updated.with_changes(value=self.new)
            if updated.value == self.old
            else updated
        )


def _arg(args, position: int, keyword: str):
    for arg in args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    positional = [a.value for a in args if a.keyword is None]
    return positional[position] if len(positional) > position else None


def _literal(expr) -> float | None:
    try:
        value = (
            ast.literal_eval(cst.Module([]).code_for_node(expr))
            if expr is not None
            else None
        )
    except (ValueError, SyntaxError):
        return None
    return (
        float(value)
        if isinstance(value, (int, float)) and not isinstance(value, bool)
        else None
    )


def _is_two(expr) -> bool:
    return _literal(expr) == 2.0


def _deferred(region: Region) -> list:
    """The statements that ran between the forward statements, after the call, reading the
    values they saw there."""
    renames = {name: fresh for name, (fresh, _) in region.snapshots.items()}
    moved = []
    for stmt in region.deferred:
        # its comments stay where it stood (the statement after it takes them)
        stmt = stmt.with_changes(leading_lines=())
        moved.append(stmt.visit(_Reads(renames)) if renames else stmt)
    return moved


class _Reads(cst.CSTTransformer):
    """Renames the names a statement reads (never attribute or keyword names)."""

    def __init__(self, renames: dict[str, str]) -> None:
        self.renames = renames

    def leave_Attribute(self, original, updated: cst.Attribute):
        return updated.with_changes(attr=original.attr)

    def leave_Arg(self, original, updated: cst.Arg):
        return updated.with_changes(keyword=original.keyword)

    def leave_Name(self, original, updated: cst.Name):
        fresh = self.renames.get(original.value)
        return updated.with_changes(value=fresh) if fresh else updated


def _region_body(region: Region, ctx: ModuleContext) -> list:
    body = []
    for stmt in region.stmts:
        for name, (fresh, rebinding) in region.snapshots.items():
            if rebinding == id(stmt):
                body.append(emit.template("__F__ = __N__", F=fresh, N=name))
        if (
            isinstance(stmt, cst.With)
            and _autocast(stmt, ctx)
            and ctx.options.target == "cpu"
        ):
            inner = list(stmt.body.body)
            if inner:
                first = inner[0]
                inner[0] = first.with_changes(
                    leading_lines=list(stmt.leading_lines) + list(first.leading_lines)
                )
                # The autocast's findings go with the first statement, the others' with theirs.
                first_position(ctx, inner[0], first, stmt)
            body.extend(inner)
        else:
            body.append(stmt)
    return body


def _autocast(stmt: cst.With, ctx: ModuleContext) -> bool:
    if len(stmt.items) != 1:
        return False
    item = stmt.items[0].item
    func = item.func if isinstance(item, cst.Call) else item
    if ctx.qualname(func) not in AUTOCAST:
        return False
    return cuda_autocast(item, ctx)


def cuda_autocast(item, ctx: ModuleContext) -> bool:
    """An autocast that is disabled on a machine without CUDA: ``torch.cuda.amp.autocast()`` or device "cuda"."""
    func = item.func if isinstance(item, cst.Call) else item
    qualified = ctx.qualname(func)
    if qualified == "torch.cuda.amp.autocast":
        return True
    if not isinstance(item, cst.Call):
        return False
    device = _arg(item.args, 0, "device_type")
    return isinstance(device, cst.SimpleString) and device.evaluated_value == "cuda"


def _hoist_point(
    region: Region, plan: Plan, weights: cst.BaseExpression
) -> cst.CSTNode | None:
    """The outermost loop around the region whose body leaves the closures and weights unchanged."""
    loop = region.loop
    if loop is None:
        return None
    scope = plan.scope
    reads: set[str] = set()
    writes: set[str] = set()
    for stmt in region.stmts:
        found = usage(stmt)
        reads |= set(found.read_names)
        writes |= found.writes
    closures = reads - set(region.params) - writes
    root = cst.Module([]).code_for_node(weights).split(".")[0].split("(")[0]
    if root in _bound_in(loop):
        return None
    candidate = loop
    while True:
        outer = scope.places[id(candidate)].loop
        if outer is None:
            return candidate
        bound = _bound_in(outer)
        if bound & closures or root in bound:
            return candidate
        candidate = outer


def _bound_in(loop: cst.CSTNode) -> set[str]:
    names = loop_target_names(loop)
    for child in loop.body.body:
        names |= usage(child).writes | _compound_targets(child)
    return names


def _apply_shared(
    region: Region, plan: Plan, ctx, rsfx, namer, weights, gvar, call_grads
) -> None:
    """One ``forward_fn`` for backwards in exclusive branches: a grad function per differentiated
    value (``loss``, ``scaler.scale(loss)``), a plain call on the paths without a backward."""
    p = region.pset
    live = plan.live
    base = region.first_name
    outputs = [base, *region.aux]
    fn = namer("forward_fn" + rsfx)
    definitions: list = [
        emit.forward_def(
            fn,
            region.params,
            _region_body(region, ctx),
            [cst.Name(n) for n in outputs],
        )
    ]
    makes: list = []
    grad_fns: dict[str, str] = {}
    calls: dict[int, list] = {}
    for event in region.sites.grads:
        zero_mode = live.zero_mode.get((id(event.stmt), p), False)
        target = gvar[p] if zero_mode else call_grads[p]
        if event.scaler is None:
            key = ""
            if key not in grad_fns:
                grad_fns[key] = namer("grad_fn" + rsfx)
                makes.append(
                    emit.value_and_grad(grad_fns[key], fn, weights[p], bool(region.aux))
                )
            call = emit.grad_call(grad_fns[key], region.params, outputs, target)
        else:
            key = event.scaler
            if key not in grad_fns:
                scaled = namer("forward_fn_scaled" + rsfx)
                grad_fns[key] = namer("grad_fn_scaled" + rsfx)
                definitions.append(
                    emit.scaled_def(scaled, fn, region.params, outputs, event.loss)
                )
                makes.append(
                    emit.value_and_grad(grad_fns[key], scaled, weights[p], True)
                )
            call = emit.grad_call(grad_fns[key], region.params, ["_", *outputs], target)
        call = call.with_changes(leading_lines=event.stmt.leading_lines)
        ctx.copy_position(call, event.stmt)
        made = [call]
        if not zero_mode:
            made.append(emit.accumulate(gvar[p], call_grads[p]))
        calls[id(event.stmt)] = made
    region.emitted = (
        definitions + makes,
        calls,
        lambda: emit.plain_call(fn, region.params, outputs),
    )


def _shared_maps(
    region, replace, before, orelse, after, hoisted, plan, weights
) -> None:
    definitions, calls, plain = region.emitted
    for stmt in region.stmts:
        replace[id(stmt)] = []
    hoist = _hoist_point(region, plan, weights[region.pset])
    if hoist is None:
        # Inserted, not replacing: the findings of the forward stay on its statements in forward_fn.
        before.setdefault(id(region.call_at), []).extend(definitions)
    else:
        before.setdefault(id(hoist), []).extend(definitions)
        hoisted.setdefault(region.pset, hoist)
    replace.update(calls)
    sites = region.sites
    for stmt in sites.before:
        before.setdefault(id(stmt), []).append(plain())
    for stmt in sites.orelse:
        orelse.setdefault(id(stmt), []).append(plain())
    for stmt in sites.after:
        after.setdefault(id(stmt), []).append(plain())
