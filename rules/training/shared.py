"""One forward computation shared by backwards in exclusive branches.

A trainer often runs the forward once and then branches: ``if train:`` differentiates it, and inside
that ``if use_amp:`` differentiates ``scaler.scale(loss)`` while ``else:`` differentiates ``loss``;
the evaluation path only reads the loss. Each path runs the forward exactly once, so the rewrite
keeps it that way: the forward becomes ``forward_fn``, every backward becomes a call of the grad
function of what it differentiates, and every path without a backward calls ``forward_fn`` plainly
before it first needs the forward's values (an ``else:`` is added where the ``if`` has none).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst

from ..common.dataflow import parse, usage
from .events import Event
from .gradstate import leaves
from .placement import _barrier, _place
from .scope import Region, ScopeInfo


@dataclass
class Sites:
    """Where the calls go: backwards replaced by grad calls, plain calls before/after statements."""

    grads: list[Event] = field(default_factory=list)
    before: list[cst.CSTNode] = field(default_factory=list)
    orelse: list[cst.If] = field(default_factory=list)
    after: list[cst.CSTNode] = field(default_factory=list)


def merge_exclusive(regions: list[Region], scope: ScopeInfo) -> list[Region]:
    """Regions with the same statements whose backwards never run on one path become one region."""
    groups: dict[tuple, list[Region]] = {}
    for region in regions:
        if region.problem is None and region.stmts:
            groups.setdefault(tuple(id(s) for s in region.stmts), []).append(region)
    merged: dict[int, Region] = {}
    for group in groups.values():
        if len(group) < 2:
            continue
        region = _merge(group, scope)
        if region is not None:
            for member in group:
                merged[id(member)] = region
    out: list[Region] = []
    for region in regions:
        new = merged.get(id(region), region)
        if all(new is not r for r in out):
            out.append(new)
    return out


def _base_name(event: Event) -> str | None:
    """``loss`` for ``loss.backward()`` and ``scaler.scale(loss).backward()``."""
    expr = event.inner_loss if event.scaler is not None else event.loss
    return expr.value if isinstance(expr, cst.Name) else None


def _merge(group: list[Region], scope: ScopeInfo) -> Region | None:
    first = group[0]
    if any(
        r.pset != first.pset
        or len(r.backwards) != 1
        or len(r.joint) > 1
        or r.vjp_stmt is not None
        or r.copies
        for r in group
    ):
        return None
    events = [r.backwards[0] for r in group]
    names = {_base_name(e) for e in events}
    if len(names) != 1 or None in names:
        return None
    base = names.pop()
    writes: set[str] = set()
    for stmt in first.stmts:
        writes |= usage(stmt).writes
    if base not in writes:
        return None
    region = Region(
        events,
        first.pset,
        list(first.stmts),
        first.block,
        first.call_at,
        loop=first.loop,
    )
    if not _place(region, scope) or region.copies:
        return None
    sites = Sites()
    block = list(region.block)
    start = block.index(region.call_at) + 1
    state = _Sink({id(e.stmt): e for e in events}, region, writes, scope, sites)
    if not state.block(block, start) or len(sites.grads) != len(events):
        return None
    params: list[str] = []
    aux: list[str] = []
    for member in group:
        params += [p for p in member.params if p not in params]
        aux += [a for a in member.aux if a not in aux and a != base]
    region.params = params
    region.aux = aux
    region.maybe_unbound = list(
        dict.fromkeys(n for r in group for n in r.maybe_unbound)
    )
    region.first = cst.Name(base)
    region.first_name = base
    region.sites = sites
    return region


class _Sink:
    """Follows every path from the forward's place to its first backward (or first use)."""

    def __init__(self, sites, region: Region, writes: set[str], scope, out: Sites):
        self.sites = sites
        self.region = region
        self.writes = writes
        self.scope = scope
        self.out = out
        self.reads: set[str] = set()
        for stmt in region.stmts:
            self.reads |= set(usage(stmt).read_names)

    def _has_site(self, stmts: Sequence[cst.CSTNode]) -> bool:
        return any(id(s) in self.sites for s in leaves(stmts))

    def block(self, block: Sequence[cst.CSTNode], start: int) -> bool:
        """Whether every path through ``block[start:]`` runs the forward once; records where."""
        for i in range(start, len(block)):
            stmt = block[i]
            rest = block[i + 1 :]
            if id(stmt) in self.sites:
                self.out.grads.append(self.sites[id(stmt)])
                return not self._has_site(rest)
            if self._has_site([stmt]):
                if not isinstance(stmt, cst.If) or self._blocks(
                    cst.SimpleStatementLine([cst.Expr(stmt.test)])
                ):
                    return False
                if not self.block(stmt.body.body, 0):
                    return False
                orelse = stmt.orelse
                if isinstance(orelse, cst.If):
                    if not self.block([orelse], 0):
                        return False
                elif orelse is None:
                    self.out.orelse.append(stmt)
                elif not self.block(orelse.body.body, 0):
                    return False
                return not self._has_site(rest)
            if self._blocks(stmt):
                if self._has_site(rest):
                    return False
                self.out.before.append(stmt)
                return True
        if block:
            self.out.after.append(block[-1])
        return True

    def _blocks(self, stmt: cst.CSTNode) -> bool:
        """Whether the forward must have run before ``stmt`` (it reads, changes or ends the path)."""
        if _leaves_path(stmt):
            return True
        found = usage(stmt)
        if set(found.read_names) & self.writes:
            return True
        if (found.writes | found.mutates) & (self.reads | self.writes):
            return True
        if (
            isinstance(stmt, cst.SimpleStatementLine)
            and self.scope.events.get(id(stmt)) is not None
            and self.scope.events[id(stmt)].kind
            in (
                "reset",
                "clip_norm",
                "clip_value",
                "unscale",
                "scaler_update",
            )
        ):
            return False
        return any(_barrier(stmt, m, self.scope) for m in self.region.stmts)


def _leaves_path(stmt: cst.CSTNode) -> bool:
    for node in ast.walk(parse(stmt)):
        if isinstance(node, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
            return True
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await)):
            return True
    return False
