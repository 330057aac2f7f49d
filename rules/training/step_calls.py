"""The module-level part of the helper summaries: which helpers are rewritten to take gradients, and
the findings for helpers and call sites that stay as they are (TM928)."""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.engine import visit
from ...migrator.findings import ERROR, WARNING
from .callsite import bind, failed_call, resolve_call
from .findings import HELPER_STEP
from .gradstate import leaves
from .summaries import (
    StepSummary,
    Summaries,
    collect_forward_callables,
    summarize,
)
from .tree_steps import kept_reason, record

LIBRARY_LEFT = "training.library_steps_left"
# Words that make a module worth summarising even without a `.backward` of its own.
LIBRARY_HINTS = ("NativeScaler", "ApexScaler", "scaler(", "Accelerator")


def has_library_hint(source: str) -> bool:
    """A library loss scaler, or a call of a name ending in ``scaler`` (a loss scaler whose class
    may live in another file)."""
    return any(hint in source for hint in LIBRARY_HINTS)


def prepare(module: cst.Module, ctx: ModuleContext, facts) -> Summaries:
    found = summarize(module, ctx)
    collect_forward_callables(module, set(facts.models), found, set(facts.losses))
    facts.step_summaries = found
    return found


def active(found: Summaries | None) -> bool:
    return bool(
        found is not None
        and (
            found.functions
            or found.callables
            or found.library_instances
            or found.library_classes
            or found.failures
            or found.unmapped
            or found.accelerators
        )
    )


def is_helper(scope: cst.CSTNode, found: Summaries | None) -> bool:
    return found is not None and (
        found.of_node(scope) is not None or id(scope) in found.failed_nodes
    )


def call_sites(
    module: cst.Module, ctx: ModuleContext, found: Summaries
) -> dict[int, list]:
    """Every call of each summarised helper in the module, by id of the summary."""
    sites: dict[int, list] = {}

    class _Calls(cst.CSTVisitor):
        line: cst.CSTNode | None = None

        def visit_SimpleStatementLine(self, node) -> None:
            self.line = node

        def visit_Call(self, call) -> None:
            summary = resolve_call(call, ctx, found)
            bound = bind(summary, call) if summary is not None else None
            if summary is not None and bound is not None and summary.loss in bound:
                key = "library" if summary.library else id(summary)
                sites.setdefault(key, []).append((call, self.line))

    visit(module, _Calls())
    return sites


def settle_helpers(
    module: cst.Module, ctx: ModuleContext, facts, plans: dict, claim
) -> tuple[dict[int, StepSummary], set[str]]:
    """The helpers to rewrite (every call of them in the module became a call with gradients), and
    the GradScalers the others still use; findings for the others and for the calls left as they
    are."""
    found: Summaries = facts.step_summaries
    sites = call_sites(module, ctx, found)
    cascade = _drop_plans_of_kept_helpers(plans, sites, found, ctx, claim)
    converted: set[int] = set()
    converted_library: set[int] = set()
    for plan in plans.values():
        for event in plan.events.values():
            if (
                event.kind in ("call_step", "call_read")
                and not event.detail["summary"].library
            ):
                converted.add(id(event.call))
            elif event.kind in ("call_step", "call_read"):
                converted_library.add(id(event.call))
    for stmt in _all_lines(module):
        reason = failed_call(stmt, ctx, facts)
        if reason is not None:
            claim(stmt)
            ctx.report(
                "TM928",
                reason + "; the training step is left unconverted",
                HELPER_STEP.use_instead,
                node=stmt,
                severity=ERROR,
            )
    rewrite: dict[int, StepSummary] = {}
    kept: set[str] = set()
    for summary in (*found.functions.values(), *found.callables.values()):
        calls = sites.get(id(summary), [])
        left = [line for call, line in calls if id(call) not in converted]
        # name a call that is left for its own reason, not one left because of the helper
        left.sort(key=lambda line: id(line) in cascade)
        if summary.foreign:
            continue
        key, elsewhere = own_key(summary, ctx)
        reason = kept_reason(ctx, key)
        if reason is None and left:
            reason = (
                f"its call at line {ctx.position(left[0])[0]} is left unconverted and still "
                "passes it a loss"
            )
        if reason is None and not calls and not elsewhere:
            reason = "it is not called in this module (its callers, in other files, pass it a loss)"
        if reason is None:
            reason = _dry_run_callee(summary, ctx, found)
        record(ctx, key, reason)
        if reason is None:
            rewrite[id(summary.node)] = summary
            _claim_events(summary.node, claim)
            continue
        _report_helper(summary.node, summary.qualname, reason, ctx, claim, found)
        kept.update(_scalers_in(summary.node, ctx))
    # calls of helpers of other files: converted in a training step, or in a helper rewritten here
    inside = {
        id(stmt)
        for summary in rewrite.values()
        for stmt in leaves(summary.node.body.body)
    }
    # a library step callable called in a helper rewritten here is written out there
    converted_library |= {
        id(call) for call, line in sites.get("library", []) if id(line) in inside
    }
    library_calls = [
        call
        for call, _ in sites.get("library", [])
        if id(call) not in converted_library
    ]
    ctx.state[LIBRARY_LEFT] = bool(library_calls) or bool(
        ctx.state.get("training.unmapped_steps")
    )
    _record_library_calls(sites.get("library", []), converted_library, ctx, found)
    for summary in (*found.functions.values(), *found.callables.values()):
        calls = sites.get(id(summary), [])
        if summary.foreign and calls:
            left = [
                line
                for call, line in calls
                if id(call) not in converted and id(line) not in inside
            ]
            record(ctx, summary.key, _left_reason(left, ctx))
    for qualname, reason in found.failures.items():
        node = next(
            (
                n
                for q, n in _named_defs(module)
                if q == qualname and id(n) in found.failed_nodes
            ),
            None,
        )
        if node is not None:
            _report_helper(node, qualname, reason, ctx, claim, found)
            kept.update(_scalers_in(node, ctx))
    return rewrite, kept


def own_key(summary: StepSummary, ctx: ModuleContext) -> tuple[str | None, bool]:
    """The tree-wide key of a helper of this module, and whether other files call it."""
    if ctx.tree is None:
        return None, False
    top = summary.qualname.split(".")[0]
    if top not in ctx.tree.called_elsewhere:
        return None, False
    module = ctx.tree.module
    return (f"{module}.{top}" if module else top), True


def _left_reason(left: list, ctx: ModuleContext) -> str | None:
    if not left:
        return None
    return f"its call in `{ctx.path}` at line {ctx.position(left[0])[0]} is left unconverted"


def _record_library_calls(calls, converted: set[int], ctx, found: Summaries) -> None:
    for call, line in calls:
        summary = resolve_call(call, ctx, found)
        if summary is not None:
            left = [line] if id(call) not in converted else []
            record(ctx, summary.key, _left_reason(left, ctx))


def _dry_run_callee(summary: StepSummary, ctx: ModuleContext, found) -> str | None:
    """Why the helper cannot be written on gradient values (None when it can)."""
    from .callee import rewrite_callee
    from .stepbody import StepProblem

    try:
        rewrite_callee(summary.node, summary, ctx, found)
    except StepProblem as problem:
        return f"its step cannot be written on gradient values: {problem}"
    return None


def _scalers_in(node: cst.FunctionDef, ctx: ModuleContext) -> set[str]:
    """``X`` for each ``X.scale(...)`` in a helper left as it is: its GradScaler stays torch's."""
    names: set[str] = set()

    class _Scales(cst.CSTVisitor):
        def visit_Call(self, call) -> None:
            func = call.func
            if isinstance(func, cst.Attribute) and func.attr.value == "scale":
                name = ctx.dotted(func.value)
                if name is not None:
                    names.add(name)

    node.visit(_Scales())
    return names


def _named_defs(module):
    from .summaries import definitions

    for qualname, node, _ in definitions(module):
        yield qualname, node


def _report_helper(
    node, qualname: str, reason: str, ctx: ModuleContext, claim, found: Summaries
) -> None:
    for stmt in leaves(node.body.body):
        if isinstance(stmt, cst.SimpleStatementLine) and (
            _runs_backward(stmt) or _calls_helper(stmt, ctx, found)
        ):
            claim(stmt)
            ctx.report(
                "TM928",
                f"`{qualname}` runs backward() on the loss it receives and is left as it is: {reason}",
                HELPER_STEP.use_instead,
                node=stmt,
                severity=ERROR,
            )


def _runs_backward(stmt) -> bool:
    found = []

    class _Find(cst.CSTVisitor):
        def visit_Attribute(self, node) -> None:
            if node.attr.value == "backward":
                found.append(node)

    stmt.visit(_Find())
    return bool(found)


_EVENT_ATTRS = frozenset({"backward", "zero_grad", "step", "unscale_", "update"})


def _claim_events(node: cst.FunctionDef, claim) -> None:
    for stmt in leaves(node.body.body):
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        small = stmt.body[0]
        call = small.value if isinstance(small, cst.Expr) else None
        if isinstance(call, cst.Call):
            func = call.func
            if (
                isinstance(func, cst.Attribute)
                and func.attr.value in _EVENT_ATTRS
                or "clip_grad" in cst.Module([]).code_for_node(func)
            ):
                claim(stmt)


def _all_lines(module: cst.Module) -> list[cst.SimpleStatementLine]:
    lines: list = []

    class _Lines(cst.CSTVisitor):
        def visit_SimpleStatementLine(self, node) -> bool:
            lines.append(node)
            return False

    visit(module, _Lines())
    return lines


def applied_ids(summary: StepSummary) -> set[str]:
    """The rule ids a rewritten helper (or a call of it) applies."""
    ids = {"TM210"}
    if summary.clip_arg is not None:
        ids.add("TM203")
    if summary.scaler is not None:
        ids.add("TM204")
    return ids


def convert_library_scalers(module: cst.Module, ctx: ModuleContext) -> cst.Module:
    """``NativeScaler(...)`` -> the MindSpore loss scaler its GradScaler becomes, and its import
    dropped, once every call of a library step callable was written on gradient values."""
    from .library_steps import constructor, imported_names
    from .scaler import scaler_call

    imported = imported_names(module, ctx)
    if not imported:
        return module
    keys = {name: "library:" + q.rsplit(".", 1)[-1] for name, q in imported.items()}
    if ctx.state.get(LIBRARY_LEFT, True):
        for key in keys.values():
            record(ctx, key, f"a call of it in `{ctx.path}` is left unconverted")
        return module
    tree_kept = {
        name: kept_reason(ctx, key)
        for name, key in keys.items()
        if kept_reason(ctx, key) is not None
    }
    changes: list[tuple[cst.CSTNode, cst.CSTNode | None]] = []
    uses = _name_uses(module, set(imported))
    built_count = {name: 0 for name in imported}
    for stmt in _all_lines(module):
        small = stmt.body[0] if len(stmt.body) == 1 else None
        if isinstance(small, cst.Assign) and isinstance(small.value, cst.Call):
            name = ctx.dotted(small.value.func)
            if name in built_count:
                built_count[name] += 1
    # An import is dropped only when converted constructions are all its uses.
    imported = {
        name: q
        for name, q in imported.items()
        if uses.get(name, 0) == built_count[name] and name not in tree_kept
    }
    for stmt in _all_lines(module):
        small = stmt.body[0] if len(stmt.body) == 1 else None
        if isinstance(small, cst.ImportFrom) and not isinstance(
            small.names, cst.ImportStar
        ):
            names = [
                a
                for a in small.names
                if (a.asname.name.value if a.asname else a.name.value) not in imported
            ]
            if len(names) != len(small.names):
                if not names:
                    changes.append((stmt, None))
                else:
                    names[-1] = names[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                    changes.append(
                        (
                            stmt,
                            stmt.with_changes(body=[small.with_changes(names=names)]),
                        )
                    )
            continue
        if isinstance(small, cst.Assign) and isinstance(small.value, cst.Call):
            local = ctx.dotted(small.value.func)
            if local in tree_kept:
                record(ctx, keys[local], tree_kept[local])
                ctx.report(
                    "TM204",
                    f"kept as the library's `{local}`: {tree_kept[local]}",
                    HELPER_STEP.use_instead,
                    node=stmt,
                    severity=ERROR,
                )
                continue
            built = constructor(small.value, imported, ctx)
            if built is None:
                continue
            new, problem = scaler_call(built, ctx)
            if new is None:
                record(ctx, keys.get(local), problem)
                ctx.report(
                    "TM204", problem, HELPER_STEP.use_instead, node=stmt, severity=ERROR
                )
                continue
            record(ctx, keys.get(local), None)
            ctx.applied.add("TM204")
            device = built.args[0].value
            if (
                ctx.options.target == "cpu"
                and isinstance(device, cst.SimpleString)
                and device.evaluated_value.split(":")[0] == "cuda"
            ):
                ctx.report(
                    "TM204",
                    "this loss scaler builds a CUDA GradScaler, which torch disables on a machine "
                    "without CUDA; MindSpore's loss scaler scales by powers of two (exact in "
                    "float32) but skips a step whose gradients overflow, which torch would take",
                    HELPER_STEP.use_instead,
                    node=stmt,
                    severity=WARNING,
                )
            changes.append(
                (stmt, stmt.with_changes(body=[small.with_changes(value=new)]))
            )
    if not changes:
        return module
    replaced = {id(old): new for old, new in changes}

    class _Replace(cst.CSTTransformer):
        def leave_SimpleStatementLine(self, original, updated):
            if id(original) not in replaced:
                return updated
            new = replaced[id(original)]
            return cst.RemoveFromParent() if new is None else new

    new_module = module.visit(_Replace())
    _keep_positions(module.body, new_module.body, replaced, ctx)
    return new_module


def _keep_positions(old_block, new_block, removed: dict, ctx: ModuleContext) -> None:
    """Give the statements a transformer rebuilt the positions of the ones they came from."""
    from .gradstate import child_blocks

    kept = [s for s in old_block if not (id(s) in removed and removed[id(s)] is None)]
    for old, new in zip(kept, new_block):
        ctx.copy_position(new, old)
        if isinstance(old, (cst.FunctionDef, cst.ClassDef)):
            if isinstance(old.body, cst.IndentedBlock):
                _keep_positions(old.body.body, new.body.body, removed, ctx)
            continue
        for a, b in zip(child_blocks(old), child_blocks(new)):
            _keep_positions(a, b, removed, ctx)


def _name_uses(module: cst.Module, names: set[str]) -> dict[str, int]:
    """How often each name is used outside import statements."""
    counts: dict[str, int] = {}

    class _Uses(cst.CSTVisitor):
        def visit_Import(self, node) -> bool:
            return False

        def visit_ImportFrom(self, node) -> bool:
            return False

        def visit_Name(self, node) -> None:
            if node.value in names:
                counts[node.value] = counts.get(node.value, 0) + 1

    module.visit(_Uses())
    return counts


def _helper_calls(plan) -> list:
    return [
        e
        for e in plan.events.values()
        if e.kind in ("call_step", "call_read") and not e.detail["summary"].library
    ]


def _drop_plans_of_kept_helpers(
    plans: dict, sites: dict, found: Summaries, ctx, claim
) -> set[int]:
    """A helper is rewritten only when every call of it is; the training steps that call a helper
    which keeps taking a loss are left as they are (to a fixpoint: leaving one may keep another).
    Returns the statements left that way."""
    cascade: set[int] = set()
    while True:
        converted = {id(e.call) for plan in plans.values() for e in _helper_calls(plan)}
        kept = {
            id(summary)
            for summary in (*found.functions.values(), *found.callables.values())
            if any(id(call) not in converted for call, _ in sites.get(id(summary), []))
        }
        dropped = [
            key
            for key, plan in plans.items()
            if any(id(e.detail["summary"]) in kept for e in _helper_calls(plan))
        ]
        if not dropped:
            return cascade
        for key in dropped:
            for event in _helper_calls(plans[key]):
                summary = event.detail["summary"]
                if id(summary) not in kept:
                    continue
                left = next(
                    line
                    for call, line in sites[id(summary)]
                    if id(call) not in converted
                )
                claim(event.stmt)
                cascade.add(id(event.stmt))
                ctx.report(
                    "TM928",
                    f"`{summary.qualname}` keeps taking the loss, because its call at line "
                    f"{ctx.position(left)[0]} is left unconverted; the training step is left "
                    "unconverted",
                    HELPER_STEP.use_instead,
                    node=event.stmt,
                    severity=ERROR,
                )
            del plans[key]


def _calls_helper(stmt, ctx: ModuleContext, found: Summaries) -> bool:
    """A statement that calls a summarised helper (or a library loss scaler) with a loss."""
    from .summaries import expr_call

    from .summaries import assigned_call

    call = expr_call(stmt)
    if call is None:
        assigned = assigned_call(stmt)
        if assigned is None:
            return False
        call = assigned[1]
    summary = resolve_call(call, ctx, found)
    bound = bind(summary, call) if summary is not None else None
    return bound is not None and summary.loss in bound


def assignment_lines(tree, names: set[str]) -> set[int]:
    """Lines of the calls assigned to ``names`` (every GradScaler a kept helper may use)."""
    import ast

    from ...migrator.aliases import dotted
    from ..common.ast_nodes import tree_statements

    lines: set[int] = set()
    if not names:
        return lines
    for node in tree_statements(tree, ast.Assign):
        if isinstance(node.value, ast.Call) and any(
            dotted(t) in names for t in node.targets
        ):
            lines.add(node.value.lineno)
    return lines


def drop_rewritten_imports(module: cst.Module, ctx: ModuleContext) -> cst.Module:
    """``from timm.utils import dispatch_clip_grad`` dropped once the rewrite replaced every use of
    the name (its calls became gradient clipping on values), so the converted module does not
    import the torch library it came from."""
    from .stepbody import REWRITTEN_IMPORTS
    from .summaries import names_in

    names = ctx.state.get(REWRITTEN_IMPORTS, set())
    if not names:
        return module
    used: set[str] = set()
    for stmt in module.body:
        if not (
            isinstance(stmt, cst.SimpleStatementLine)
            and all(isinstance(s, cst.ImportFrom) for s in stmt.body)
        ):
            used |= names_in(stmt)
    gone = names - used
    if not gone:
        return module
    body = []
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
            small = stmt.body[0]
            if isinstance(small, cst.ImportFrom) and not isinstance(
                small.names, cst.ImportStar
            ):
                kept = [
                    a
                    for a in small.names
                    if a.asname is not None or a.name.value not in gone
                ]
                if not kept:
                    continue
                if len(kept) != len(small.names):
                    kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                    stmt = stmt.with_changes(body=[small.with_changes(names=kept)])
        body.append(stmt)
    return module.with_changes(body=body)
