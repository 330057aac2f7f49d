"""Where the single call to ``grad_fn`` goes, so that every statement still sees what it saw;
and ``mindspore.vjp`` for a forward that must run once but feeds two gradients."""

from __future__ import annotations

import libcst as cst

from ..common.dataflow import fresh_name, usage
from .scope import (
    Region,
    ScopeInfo,
    called_models,
    has_random,
    is_pure,
)


def _through_vjp(region: Region, stmt: cst.CSTNode, scope: ScopeInfo) -> bool:
    """``fake = netG(noise)`` is needed before the step (detached) and differentiated after it:
    run it once with ``mindspore.vjp`` and take the gradient of the loss with respect to ``fake``."""
    if (
        not isinstance(stmt, cst.SimpleStatementLine)
        or len(stmt.body) != 1
        or not isinstance(stmt.body[0], cst.Assign)
    ):
        return False
    assign = stmt.body[0]
    if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
        return False
    call = assign.value
    if not isinstance(call, cst.Call) or any(a.keyword or a.star for a in call.args):
        return False
    model = cst.Module([]).code_for_node(call.func)
    owner = scope.owners.get(region.pset)
    if owner is None or owner != model or model not in scope.models:
        return False
    rest = [s for s in region.stmts if s is not stmt]
    for other in rest:
        called = called_models(other, scope)
        if called is None or owner in called:
            return False
    region.stmts = rest
    region.vjp_stmt = stmt
    region.vjp_name = assign.targets[0].target.value
    region.impure = []
    return bool(rest)


def _place(region: Region, scope: ScopeInfo, anchor: cst.CSTNode | None = None) -> bool:
    """Choose where the single call to ``grad_fn`` goes, so every statement still sees what it saw."""
    block = list(region.block)
    positions = {id(s): block.index(s) for s in region.stmts}
    first, last = min(positions.values()), max(positions.values())
    if anchor is not None:
        last = block.index(anchor)
    own = {id(e.stmt) for e in region.backwards}
    between = [
        block[i]
        for i in range(first, last + 1)
        if id(block[i]) not in positions
        and block[i] is not anchor
        and id(block[i]) not in own
    ]
    if not between:
        region.call_at = block[last]
        return True
    members = [(positions[id(s)], s, usage(s)) for s in region.stmts]
    impure: list[cst.CSTNode] = []

    def conflicts(at_end: bool) -> set[int] | None:
        dup: set[int] = set()
        for stmt in between:
            i = block.index(stmt)
            other = usage(stmt)
            other_writes = other.writes | other.mutates
            moved = [(j, s, u) for j, s, u in members if (j < i if at_end else j > i)]
            for j, s, u in moved:
                writes = u.writes | u.mutates
                if other_writes & (set(u.read_names) | writes) or _barrier(
                    stmt, s, scope
                ):
                    return None
                if set(other.read_names) & writes:
                    if (
                        at_end
                        and is_pure(s, scope)
                        and not _rebound_between(s, block, j, last)
                    ):
                        dup.add(id(s))
                    else:
                        impure.append(s)
                        return None
        # A statement kept where it stands reads only what is bound there: values it takes from
        # other forward statements must be kept as well.
        changed = True
        while changed:
            changed = False
            for j, s, u in members:
                if id(s) not in dup:
                    continue
                for k, t, w in members:
                    if k < j and id(t) not in dup and (w.writes & set(u.read_names)):
                        if not is_pure(t, scope) or _rebound_between(t, block, k, last):
                            impure.append(t)
                            return None
                        dup.add(id(t))
                        changed = True
        return dup

    dup = conflicts(True)
    if dup is not None:
        region.copies = dup
        region.call_at = block[last]
        return True
    if anchor is None and conflicts(False) == set():
        region.call_at = block[first]
        return True
    if _defer(region, scope, block, between, first, last):
        region.call_at = block[last]
        return True
    region.impure = list(dict.fromkeys(impure))
    if impure:
        region.problem = (
            "TM923",
            "this forward computation would have to run twice (its values are used before the step and differentiated after it); a model with state (BatchNorm) or randomness (dropout) would then differ",
        )
    else:
        region.problem = (
            "TM926",
            "other statements are interleaved with the forward computation and use its values",
        )
    return False


def _barrier(stmt: cst.CSTNode, moved: cst.CSTNode, scope: ScopeInfo) -> bool:
    """Whether ``moved`` may not cross ``stmt`` because ``stmt`` can change what ``moved`` computes."""
    event = scope.events.get(id(stmt))
    moved_models = called_models(moved, scope)
    if event is None and not isinstance(stmt, cst.SimpleStatementLine):
        from .gradstate import leaves

        inner = [s for s in leaves([stmt]) if isinstance(s, cst.SimpleStatementLine)]
        if inner and all(
            scope.events.get(id(s)) is not None
            and scope.events[id(s)].kind
            in (
                "reset",
                "backward",
                "clip_norm",
                "clip_value",
                "unscale",
                "scaler_update",
            )
            for s in inner
        ):
            return False
    if event is not None:
        if event.kind in ("step", "scaler_step", "manual", "closure_step"):
            owner = (
                scope.owners.get(event.target)
                if event.kind != "manual"
                else event.target
            )
            return moved_models is None or owner is None or owner in moved_models
        return False
    if has_random(stmt, scope) and (
        has_random(moved, scope)
        or moved_models is None
        or any(not scope.is_pure_model(m) for m in moved_models)
    ):
        return True
    other_models = called_models(stmt, scope)
    if other_models is None:
        return bool(moved_models is None or moved_models)
    if moved_models is None:
        return bool(other_models)
    shared = other_models & moved_models
    return any(not scope.is_pure_model(m) for m in shared)


def _rebound_between(stmt: cst.CSTNode, block: list, start: int, end: int) -> bool:
    reads = set(usage(stmt).read_names)
    for other in block[start + 1 : end + 1]:
        found = usage(other)
        if reads & (found.writes | found.mutates):
            return True
    return False


def _defer(
    region: Region,
    scope: ScopeInfo,
    block: list,
    between: list,
    first: int,
    last: int,
) -> bool:
    """``loss = criterion(out, y); loss_value = loss.item(); ...; loss = loss / accum``: the
    statements between the forward statements that only read their values (a check of the loss,
    a print, a log of the outputs) run after the single call, in their order, reading what the
    call returns; a value a later forward statement rebinds is returned as it was where they read
    it. Only where none of them feeds the forward computation, changes what it reads, or leaves
    the block (``return``, ``break``, ``continue``)."""
    if block[last] not in region.stmts:
        return False
    members = [(block.index(s), s, usage(s)) for s in region.stmts]
    written_by_members = set()
    for _, _, u in members:
        written_by_members |= u.writes
    snapshots: dict[str, str] = {}
    rebound_at: dict[str, int] = {}  # name -> id of the forward statement that rebinds it
    taken = scope_names(scope)
    for stmt in between:
        i = block.index(stmt)
        if i > last or not _movable(stmt, scope):
            return False
        found = usage(stmt)
        reads = set(found.read_names)
        later = [(j, s, u) for j, s, u in members if j > i]
        for _, s, u in later:
            if (found.writes | found.mutates) & (set(u.read_names) | u.writes):
                return False  # it feeds (or is overwritten by) the forward computation
            if u.mutates & reads:
                return False  # a value it reads is changed in place later on
            if _barrier(stmt, s, scope):
                return False
        for name in sorted(reads & written_by_members):
            rebinding = next((s for _, s, u in later if name in u.writes), None)
            if rebinding is None:
                continue
            if name in snapshots:
                if rebound_at[name] != id(rebinding):
                    return False  # read at two places that see two values
                continue
            snapshots[name] = fresh_name(f"{name}_read", taken)
            taken.add(snapshots[name])
            rebound_at[name] = id(rebinding)
    if not between:
        return False
    region.deferred = list(between)
    region.snapshots = {
        name: (fresh, rebound_at[name]) for name, fresh in snapshots.items()
    }
    return True


def _movable(stmt: cst.CSTNode, scope: ScopeInfo) -> bool:
    """A statement that may run a little later in the same block: no training event, and no
    statement that leaves the block or the function."""
    from .gradstate import leaves

    for inner in leaves([stmt]):
        if scope.events.get(id(inner)) is not None:
            return False
        if isinstance(inner, (cst.FunctionDef, cst.ClassDef)):
            return False
        if isinstance(inner, cst.SimpleStatementLine) and any(
            isinstance(
                small, (cst.Return, cst.Break, cst.Continue, cst.Global, cst.Nonlocal)
            )
            for small in inner.body
        ):
            return False
    import ast

    from ..common.dataflow import parse

    return not any(
        isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await))
        for node in ast.walk(parse(stmt))
    )


def scope_names(scope: ScopeInfo) -> set[str]:
    """Every name the scope reads or binds."""
    node = scope.node
    found = usage(node.body if isinstance(node, cst.FunctionDef) else node)
    return set(found.read_names) | found.writes
