"""Analyse one scope (a function body or the module body): its gradient-state events, the parameter
set of each, the flow of G, and the forward region of every live backward. The result is a plan
the rewrite applies, or the problems that keep the scope as it is."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst

from ...migrator.aliases import dotted, resolve
from ...migrator.context import PARSED, ModuleContext
from ..common.ast_nodes import tree_nodes
from ..common.dataflow import fresh_name
from ..common.tree import module_tree
from .events import (
    READS,
    TRANSFORMS,
    Event,
    event_of,
    is_optimizer,
    manual_update_of,
    mentions_grad,
)
from .facts import ModuleFacts
from .forward import build_region
from .gradstate import INIT, GradFlow, Liveness, index_scope, leaves, liveness
from .scope import Region, ScopeInfo, is_pure
from .shared import merge_exclusive
from .summaries import forward_callables

CALL_KINDS = frozenset({"call_step", "call_read"})  # calls of summarised helpers


@dataclass
class Problem:
    rule: str
    message: str
    stmt: cst.CSTNode


@dataclass
class Plan:
    scope: ScopeInfo
    events: dict[int, Event]
    psets: list[str]
    manual: set[
        str
    ]  # psets that are models updated by hand (weights: M.trainable_params())
    flow: GradFlow
    live: Liveness
    regions: list[Region] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    notes: list[Problem] = field(default_factory=list)
    # rewritten, with a warning
    cautions: list[Problem] = field(default_factory=list)
    # GradScalers the reported step still needs as torch's
    kept_scalers: set = field(default_factory=set)
    init_unknown: bool = False
    handled: list[Event] = field(default_factory=list)  # the events this plan claims
    origin: dict = field(
        default_factory=dict
    )  # split statement -> the line it came from
    accumulating: set = field(
        default_factory=set
    )  # psets whose G is kept across backwards (set by the rewrite)

    @property
    def ok(self) -> bool:
        return not self.problems and bool(self.regions)


def function_params(node: cst.CSTNode) -> list[str]:
    if not isinstance(node, cst.FunctionDef):
        return []
    params = node.params
    names = [
        p.name.value
        for p in (*params.posonly_params, *params.params, *params.kwonly_params)
    ]
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            names.append(star.name.value)
    return names


def scope_body(node: cst.CSTNode) -> Sequence[cst.CSTNode]:
    if isinstance(node, cst.Module):
        return node.body
    if isinstance(node.body, cst.IndentedBlock):
        return node.body.body
    return ()


def split_event_lines(
    body: Sequence[cst.CSTNode],
    ctx: ModuleContext,
    facts: ModuleFacts,
    origin: dict[int, cst.CSTNode],
) -> Sequence[cst.CSTNode]:
    """``model.train(); opt.zero_grad()`` as one statement per line, so each event stands alone."""
    from .callsite import expand as expand_call
    from .emit import rebuild
    from .gradstate import child_blocks

    replace: dict[int, list] = {}
    taken = set(ctx.bound_names)
    for stmt in leaves(body):
        expanded = expand_call(stmt, ctx, facts)
        if expanded is not None:
            replace[id(stmt)] = expanded
            for line in expanded:
                if line is not stmt:
                    origin[id(line)] = stmt
            continue
        extracted = _extract_random_args(stmt, ctx, taken)
        if extracted is not None:
            replace[id(stmt)] = extracted
            for line in extracted:
                origin[id(line)] = stmt
                ctx.copy_position(line, stmt)
            continue
        if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) > 1:
            lines = []
            for i, small in enumerate(stmt.body):
                small = small.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
                line = cst.SimpleStatementLine(
                    [small], leading_lines=stmt.leading_lines if i == 0 else ()
                )
                lines.append(line)
            if any(event_of(line, ctx, facts) is not None for line in lines):
                replace[id(stmt)] = lines
                for line in lines:
                    origin[id(line)] = stmt
                    ctx.copy_position(line, stmt)
    if not replace:
        return body
    from . import emit

    keep_position = emit.POSITION
    emit.POSITION = (
        ctx.copy_position
    )  # a statement made for a helper call stands at its line
    try:
        new_body = rebuild(body, replace, {})
    finally:
        emit.POSITION = keep_position

    def align(old_block, new_block) -> None:
        new_iter = iter(new_block)
        for old in old_block:
            count = len(replace.get(id(old), [None]))
            for _ in range(count):
                new = next(new_iter, None)
                if new is None:
                    return
                if id(old) not in replace:
                    ctx.copy_position(new, old)
                    origin[id(new)] = origin.get(id(old), old)
                    for a, b in zip(child_blocks(old), child_blocks(new)):
                        align(a, b)

    align(body, new_body)
    return new_body


_RANDOM = frozenset({"randn", "rand", "randint", "normal", "randperm"})


def _extract_random_args(
    stmt: cst.CSTNode, ctx: ModuleContext, taken: set[str]
) -> list | None:
    """``out = model(torch.randn(20, 10))`` -> ``inputs = torch.randn(20, 10)``; ``out = model(inputs)``:
    the random draw stays where it is when the model call moves into ``forward_fn``."""
    if (
        not isinstance(stmt, cst.SimpleStatementLine)
        or len(stmt.body) != 1
        or not isinstance(stmt.body[0], cst.Assign)
    ):
        return None
    assign = stmt.body[0]
    call = assign.value
    if (
        not isinstance(call, cst.Call)
        or ctx.qualname(call.func) is not None
        or ctx.dotted(call.func) is None
    ):
        return None
    new_args = []
    lines = []
    for arg in call.args:
        value = arg.value
        inner = value
        while (
            isinstance(inner, cst.Call)
            and isinstance(inner.func, cst.Attribute)
            and inner.func.attr.value in ("to", "cuda", "float")
            and ctx.qualname(inner.func) is None
        ):
            inner = inner.func.value
        qualified = ctx.qualname(inner.func) if isinstance(inner, cst.Call) else None
        if qualified is not None and qualified.rsplit(".", 1)[-1] in _RANDOM:
            name = fresh_name("inputs", taken)
            taken.add(name)
            lines.append(
                cst.SimpleStatementLine(
                    [cst.Assign([cst.AssignTarget(cst.Name(name))], value)],
                    leading_lines=stmt.leading_lines if not lines else (),
                )
            )
            new_args.append(arg.with_changes(value=cst.Name(name)))
        else:
            new_args.append(arg)
    if not lines:
        return None
    rest = stmt.with_changes(
        body=[assign.with_changes(value=call.with_changes(args=new_args))],
        leading_lines=(),
    )
    return lines + [rest]


def analyze(
    node: cst.CSTNode, ctx: ModuleContext, facts: ModuleFacts, closures: set[str]
) -> Plan | None:
    origin: dict[int, cst.CSTNode] = {}
    body = split_event_lines(scope_body(node), ctx, facts, origin)
    places = index_scope(body)
    events: dict[int, Event] = {}
    grad_reads: list[cst.CSTNode] = []
    inside_manual: set[int] = set()
    for stmt in leaves(body):
        if id(stmt) in inside_manual:
            continue
        event = None
        if isinstance(stmt, cst.SimpleStatementLine):
            event = event_of(stmt, ctx, facts)
        elif isinstance(stmt, (cst.For, cst.With)):
            event = manual_update_of(stmt, ctx)
            if event is not None:
                inside_manual.update(id(s) for s in leaves([stmt]))
        if event is not None:
            events[id(stmt)] = event
        elif isinstance(stmt, cst.SimpleStatementLine) and mentions_grad(stmt):
            grad_reads.append(stmt)
    backwards = [e for e in events.values() if e.kind == "backward"]
    scope = ScopeInfo(
        body,
        node,
        places,
        set(facts.models),
        {**facts.mindspore_names, **ctx.aliases},
        lambda name: facts.is_pure_model(name, ctx.aliases),
        function_params(node),
        events,
        dict(facts.optimizers),
        set(facts.losses),
        set(facts.data_sources),
        forward_callables(facts),
        _imported(ctx),
    )
    if node is ctx.state.get(PARSED):
        scope.parsed_tree = module_tree(ctx)
    if isinstance(node, cst.FunctionDef) and node.name.value in closures:
        plan = Plan(
            scope, events, [], set(), GradFlow({}, ()), Liveness({}, set(), set())
        )
        for event in backwards:
            plan.problems.append(
                Problem(
                    "TM921",
                    "this backward() runs inside an optimizer closure (`optimizer.step(closure)`, LBFGS)",
                    event.stmt,
                )
            )
            plan.handled.append(event)
        return plan if backwards else None
    steps = [
        e
        for e in events.values()
        if e.kind in READS or e.kind in TRANSFORMS or e.kind == "closure_step"
    ]
    if not backwards or not steps:
        return None
    # Parameter sets.
    optimizers: list[str] = []
    manual: set[str] = set()
    for event in events.values():
        if (
            event.kind
            in CALL_KINDS | {"step", "scaler_step", "unscale", "closure_step"}
            and event.target
            and event.target not in optimizers
            or event.kind == "reset"
            and is_optimizer(event.target, facts)
            and event.target not in optimizers
        ):
            optimizers.append(event.target)
        elif event.kind == "manual":
            manual.add(event.target)
    # An optimizer over the parameters of a model that is also updated by hand is the same set.
    canonical = {
        o: facts.optimizers[o] for o in optimizers if facts.optimizers.get(o) in manual
    }
    optimizers = [o for o in optimizers if o not in canonical]
    psets = optimizers + sorted(manual)
    flow = GradFlow(events, psets)
    plan = Plan(
        scope, events, psets, manual, flow, Liveness({}, set(), set()), origin=origin
    )
    for event in events.values():
        if event.kind == "closure_step":
            plan.problems.append(
                Problem(
                    "TM921",
                    f"`{event.target}.step(closure)` re-evaluates the loss inside the optimizer (LBFGS)",
                    event.stmt,
                )
            )
    for line, _, hook in facts.hooks:
        plan.problems.append(
            Problem(
                "TM922",
                f"gradient hooks (`{hook}` at line {line}) change what `.grad` receives",
                backwards[0].stmt,
            )
        )
        break
    for stmt in grad_reads:
        plan.problems.append(
            Problem(
                "TM927", "`.grad` is read here, outside the update statements", stmt
            )
        )
    for event in events.values():
        if event.kind in CALL_KINDS | {"step", "scaler_step", "unscale"}:
            event.psets = (
                (canonical.get(event.target, event.target),) if event.target else ()
            )
        elif event.kind == "manual":
            event.psets = (event.target,)
        elif event.kind == "reset" or event.kind in ("clip_norm", "clip_value"):
            resolved = _resolve_model(event, optimizers, manual, facts, plan, canonical)
            if resolved is None:
                plan.problems.append(
                    Problem(
                        "TM926",
                        f"cannot tell which optimizer holds the parameters of `{event.target or '...'}`",
                        event.stmt,
                    )
                )
                event.psets = ()
            else:
                event.psets = resolved
    exit_state = flow.run(body)
    init_zero = (
        isinstance(node, cst.Module)
        or all(
            all(s == INIT or s[0] == "reset" for s in exit_state.get(p, ()))
            for p in psets
        )
        if exit_state is not None
        else True
    )
    plan.live = live = liveness(flow, init_zero)
    plan.init_unknown = bool(live.init_read) and not init_zero
    # Backwards, grouped where consecutive ones add up into the same G.
    ordered = [
        e
        for e in (events.get(id(s)) for s in leaves(body))
        if e is not None and e.kind == "backward"
    ]
    groups: list[list[Event]] = []
    for event in ordered:
        if id(event.stmt) not in flow.visited:
            continue
        live_sets = [p for p in psets if (("bw", id(event.stmt)), p) in live.needed]
        if not live_sets:
            continue
        plan.handled.append(event)
        joint_ok = not (set(live_sets) & manual) and all(
            live.zero_mode.get((id(event.stmt), p), False) for p in live_sets
        )
        if len(live_sets) > 1 and joint_ok:
            # One loss, several optimizers (encoder/decoder): one differentiation, split.
            event.psets = tuple(live_sets)
            groups.append([event])
            continue
        if len(live_sets) > 1:
            plan.problems.append(
                Problem(
                    "TM924",
                    "this backward() feeds the gradients of several optimizers ("
                    + ", ".join(f"`{p}`" for p in live_sets)
                    + ")",
                    event.stmt,
                )
            )
            continue
        event.psets = (live_sets[0],)
        if groups and _adds_to(groups[-1][-1], event, live_sets[0], plan):
            groups[-1].append(event)
        else:
            groups.append([event])
    if not plan.handled:
        return None
    for event in events.values():
        if event.kind != "backward":
            plan.handled.append(event)
    if plan.problems:
        return plan
    for group in groups:
        region = (
            build_region(group, group[0].psets[0], scope) if len(group) > 1 else None
        )
        if region is None or region.problem:
            for event in group:
                single = build_region([event], event.psets[0], scope)
                single.joint = tuple(event.psets)
                plan.regions.append(single)
        else:
            plan.regions.append(region)
    plan.regions = merge_exclusive(plan.regions, scope)
    for region in plan.regions:
        if region.problem:
            plan.problems.append(
                Problem(region.problem[0], region.problem[1], region.backwards[-1].stmt)
            )
    _shared_statements(plan)
    _check_scalers(plan, facts, ctx)
    return plan


def _resolve_model(
    event: Event,
    optimizers: list[str],
    manual: set[str],
    facts: ModuleFacts,
    plan: Plan,
    canonical: dict,
) -> tuple[str, ...] | None:
    target = canonical.get(event.target, event.target)
    if target is None:
        return None
    if target in optimizers or target in manual:
        return (target,)
    owned = [o for o in facts.optimizers_of(target) if o in optimizers]
    if owned:
        return tuple(owned)
    if target in manual:
        return (target,)
    if len(optimizers) == 1 and not manual and not facts.optimizers.get(optimizers[0]):
        plan.notes.append(
            Problem(
                "TM201",
                f"assumes `{optimizers[0]}` holds exactly the parameters of `{target}`",
                event.stmt,
            )
        )
        return (optimizers[0],)
    if len(manual) == 1 and not optimizers and event.kind != "reset":
        return (next(iter(manual)),)
    return None


def _adds_to(previous: Event, event: Event, pset: str, plan: Plan) -> bool:
    """``event`` adds to exactly what ``previous`` left, and nothing else reads that value."""
    flow = plan.flow
    if flow.incoming.get(id(event.stmt), {}).get(pset) != frozenset(
        {("bw", id(previous.stmt))}
    ):
        return False
    if plan.live.zero_mode.get((id(event.stmt), pset), True):
        return False
    source = ("bw", id(previous.stmt))
    for key, seen in flow.incoming.items():
        other = plan.events[key]
        if (
            other is not event
            and (
                other.kind in READS
                or other.kind in TRANSFORMS
                or other.kind == "backward"
            )
            and source in seen.get(pset, ())
        ):
            return False
    places = plan.scope.places
    return places[id(previous.stmt)].block is places[id(event.stmt)].block


def _shared_statements(plan: Plan) -> None:
    """A statement in two forward regions runs twice: allowed only when it has no side effect."""
    seen: dict[int, Region] = {}
    for region in plan.regions:
        if region.problem:
            continue
        for stmt in region.stmts:
            if (id(stmt) in seen or id(stmt) in region.copies) and not is_pure(
                stmt, plan.scope
            ):
                plan.problems.append(
                    Problem(
                        "TM923",
                        "this forward computation feeds two gradient computations and would run once for each; a model with state (BatchNorm) or randomness (dropout) would then differ",
                        stmt,
                    )
                )
                return
            seen[id(stmt)] = region


def _check_scalers(plan: Plan, facts: ModuleFacts, ctx: ModuleContext) -> None:
    from .scaler import scaler_call

    for name in sorted({e.scaler for e in plan.events.values() if e.scaler}):
        built = facts.scalers.get(name)
        if built is None:
            continue
        new, problem = scaler_call(cst.parse_expression(ast.unparse(built)), ctx)
        if new is None:
            stmt = next(e.stmt for e in plan.events.values() if e.scaler == name)
            plan.kept_scalers.add(name)
            plan.problems.append(
                Problem(
                    "TM926",
                    f"`{name}` stays torch's GradScaler ({problem})",
                    stmt,
                )
            )
    steps: dict[str, list[Event]] = {}
    for event in plan.events.values():
        if event.kind == "scaler_step":
            steps.setdefault(event.scaler, []).append(event)
    for event in plan.events.values():
        if event.kind == "scaler_update" and len(steps.get(event.scaler, [])) != 1:
            plan.problems.append(
                Problem(
                    "TM926",
                    f"`{event.scaler}.update()` follows several (or no) `{event.scaler}.step()` calls",
                    event.stmt,
                )
            )
        if event.kind == "scaler_step":
            pset = event.psets[0] if event.psets else event.target
            states = _unscaled(plan, id(event.stmt), pset, set())
            if len(states) > 1:
                plan.problems.append(
                    Problem(
                        "TM926",
                        "the gradients reach `scaler.step()` unscaled on some paths and scaled on others",
                        event.stmt,
                    )
                )
            event.detail["unscaled"] = states == {True}
        if event.kind in ("clip_norm", "clip_value"):
            sources = plan.flow.incoming.get(id(event.stmt), {})
            scalers = {
                plan.events[s[1]].scaler
                for p in event.psets
                for s in sources.get(p, ())
                if s[0] == "bw" and plan.events[s[1]].scaler
            }
            for name in sorted(scalers):
                _clip_scaled(plan, event, name, facts, ctx)


def _clip_scaled(
    plan: Plan, event: Event, scaler: str, facts: ModuleFacts, ctx: ModuleContext
) -> None:
    """Clipping before ``scaler.unscale_``: torch clips the scaled gradients, and so does the
    rewrite, which equals torch exactly when torch's GradScaler is enabled (scale != 1)."""
    enabled = scaler_enabled(facts.scalers.get(scaler), ctx.aliases, ctx.options.target)
    if enabled is False:
        plan.kept_scalers.add(scaler)
        plan.problems.append(
            Problem(
                "TM926",
                f"`{scaler}` is disabled in torch here (its device is CUDA, and --target cpu runs without "
                "it), so torch clips unscaled gradients, while the MindSpore loss scaler would clip "
                "scaled ones; call `scaler.unscale_(optimizer)` before clipping",
                event.stmt,
            )
        )
    elif enabled is None:
        plan.cautions.append(
            Problem(
                "TM204",
                f"clips the scaled gradients, as the original does; equal to torch while `{scaler}` is "
                "enabled (torch disables a GradScaler whose device is unavailable, and then clips "
                "unscaled gradients)",
                event.stmt,
            )
        )


def scaler_enabled(
    call: ast.Call | None, aliases: dict[str, str], target: str
) -> bool | None:
    """Whether torch runs this GradScaler enabled (True), disabled (False), or it cannot be told."""
    if call is None:
        return None
    for keyword in call.keywords:
        if keyword.arg == "enabled":
            if not isinstance(keyword.value, ast.Constant):
                return None
            if keyword.value.value is not True:
                return False
        if keyword.arg is None:
            return None
    name = dotted(call.func)
    qualified = resolve(name, aliases) if name else None
    if qualified == "torch.cpu.amp.GradScaler":
        return True
    if qualified == "torch.cuda.amp.GradScaler":
        return target != "cpu"
    if qualified not in ("torch.amp.GradScaler", "torch.amp.grad_scaler.GradScaler"):
        return None
    device = call.args[0] if call.args else None
    for keyword in call.keywords:
        if keyword.arg == "device":
            device = keyword.value
    if device is None:
        return target != "cpu"  # torch.amp.GradScaler defaults to "cuda"
    if not isinstance(device, ast.Constant) or not isinstance(device.value, str):
        return None
    kind = device.value.split(":")[0]
    if kind == "cpu":
        return True
    if kind == "cuda":
        return target != "cpu"
    return None


def _unscaled(plan: Plan, key: int, pset: str, seen: set) -> set[bool]:
    """Whether the gradients reaching event ``key`` went through ``scaler.unscale_`` (per path)."""
    states: set[bool] = set()
    for kind, source in plan.flow.incoming.get(key, {}).get(pset, ()):
        if kind != "xf" or source in seen:
            states.add(False) if kind == "bw" else None
            continue
        if plan.events[source].kind == "unscale":
            states.add(True)
        else:
            states |= _unscaled(plan, source, pset, seen | {source})
    return states


def step_closures(tree: ast.Module) -> set[str]:
    """Names of functions passed to ``optimizer.step(closure)``."""
    names = set()
    for node in tree_nodes(tree, ast.Call):
        if (
            isinstance(node.func, ast.Attribute)
            and node.func.attr == "step"
            and len(node.args) == 1
            and isinstance(node.args[0], ast.Name)
        ):
            names.add(node.args[0].id)
    return names


def _imported(ctx: ModuleContext) -> set[str]:
    """Names the module binds by importing other modules' (not torch's) names."""
    from .summary_events import MODULE_IMPORTS

    return {
        local
        for local, target in ctx.state.get(MODULE_IMPORTS, {}).items()
        if local not in ctx.aliases and target.split(".")[0] != "torch"
    }
