"""The gradient-state model: ``.grad`` of each parameter set as one variable G, followed through the
control flow of a function (or module) body.

Each event sees the *sources* G may hold there: the zero of a reset (or of the scope's entry), the
value a backward left, the value a transform (clipping, unscaling) left. A backward that sees only
zeros overwrites G (``grads = g``); one that may see another value adds to it. Sources that no read
(``step``, a manual update, a transform, an adding backward) ever sees are dead and are not emitted.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import libcst as cst

from .events import READS, TRANSFORMS, Event

INIT = ("init", 0)
Source = tuple[str, int]
State = dict[str, frozenset]


def child_blocks(stmt: cst.CSTNode) -> list[Sequence[cst.CSTNode]]:
    """The statement lists directly inside a compound statement."""
    blocks: list[Sequence[cst.CSTNode]] = []

    def add(suite) -> None:
        if isinstance(suite, cst.IndentedBlock):
            blocks.append(suite.body)

    if isinstance(stmt, (cst.For, cst.While)):
        add(stmt.body)
        if stmt.orelse is not None:
            add(stmt.orelse.body)
    elif isinstance(stmt, cst.If):
        add(stmt.body)
        orelse = stmt.orelse
        if isinstance(orelse, cst.If):
            blocks.append([orelse])
        elif orelse is not None:
            add(orelse.body)
    elif isinstance(stmt, cst.With):
        add(stmt.body)
    elif isinstance(stmt, (cst.Try, cst.TryStar)):
        add(stmt.body)
        for handler in stmt.handlers:
            add(handler.body)
        if stmt.orelse is not None:
            add(stmt.orelse.body)
        if stmt.finalbody is not None:
            add(stmt.finalbody.body)
    elif isinstance(stmt, cst.Match):
        for case in stmt.cases:
            add(case.body)
    return blocks


@dataclass
class Place:
    block: Sequence[cst.CSTNode]
    index: int
    parent: (
        cst.CSTNode | None
    )  # the compound statement owning ``block`` (None: the scope body)
    loop: (
        cst.CSTNode | None
    )  # the innermost For/While around the statement, within the scope


def index_scope(body: Sequence[cst.CSTNode]) -> dict[int, Place]:
    places: dict[int, Place] = {}

    def walk(block, parent, loop) -> None:
        for i, stmt in enumerate(block):
            places[id(stmt)] = Place(block, i, parent, loop)
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                continue
            inner = stmt if isinstance(stmt, (cst.For, cst.While)) else loop
            for child in child_blocks(stmt):
                walk(child, stmt, inner)

    walk(body, None, None)
    return places


def leaves(block: Iterable[cst.CSTNode]) -> Iterable[cst.CSTNode]:
    """Every statement in program order, compound statements before their contents."""
    for stmt in block:
        yield stmt
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            continue
        for child in child_blocks(stmt):
            yield from leaves(child)


@dataclass
class _Loop:
    breaks: list = field(default_factory=list)
    continues: list = field(default_factory=list)


def _join(*states: State | None) -> State | None:
    live = [s for s in states if s is not None]
    if not live:
        return None
    keys = set().union(*live)
    return {k: frozenset().union(*(s.get(k, frozenset()) for s in live)) for k in keys}


class GradFlow:
    """Runs the sources of every parameter set through a scope body to a fixpoint."""

    def __init__(self, events: dict[int, Event], psets: Iterable[str]) -> None:
        self.events = events
        self.psets = tuple(psets)
        self.incoming: dict[int, State] = {}
        self.visited: set[int] = set()
        self.loops: list[_Loop] = []
        self.returns: list[State] = []

    def run(self, body: Sequence[cst.CSTNode]) -> State | None:
        start = {p: frozenset({INIT}) for p in self.psets}
        end = self.block(body, start)
        return _join(end, *self.returns)

    def _record(self, event: Event, state: State, psets: Iterable[str]) -> None:
        seen = self.incoming.setdefault(id(event.stmt), {})
        for p in psets:
            seen[p] = seen.get(p, frozenset()) | state.get(p, frozenset())
        self.visited.add(id(event.stmt))

    def block(self, stmts: Sequence[cst.CSTNode], state: State | None) -> State | None:
        for stmt in stmts:
            if state is None:
                return None
            state = self.statement(stmt, state)
        return state

    def statement(self, stmt: cst.CSTNode, state: State) -> State | None:
        event = self.events.get(id(stmt))
        if event is not None:
            return self.transfer(event, state)
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, (cst.Return, cst.Raise)):
                    if isinstance(small, cst.Return):
                        self.returns.append(state)
                    return None
                if isinstance(small, cst.Break) and self.loops:
                    self.loops[-1].breaks.append(state)
                    return None
                if isinstance(small, cst.Continue) and self.loops:
                    self.loops[-1].continues.append(state)
                    return None
            return state
        if isinstance(stmt, (cst.For, cst.While)):
            return self.loop(stmt, state)
        if isinstance(stmt, cst.If):
            branches = child_blocks(stmt)
            after_body = self.block(branches[0], state)
            if len(branches) > 1:
                return _join(after_body, self.block(branches[1], state))
            return _join(after_body, state)
        if isinstance(stmt, cst.With):
            return self.block(child_blocks(stmt)[0], state)
        if isinstance(stmt, (cst.Try, cst.TryStar)):
            body_end = self.block(stmt.body.body, state)
            ends = []
            if stmt.orelse is not None:
                ends.append(self.block(stmt.orelse.body.body, body_end))
            else:
                ends.append(body_end)
            for handler in stmt.handlers:
                ends.append(self.block(handler.body.body, _join(state, body_end)))
            result = _join(*ends)
            if stmt.finalbody is not None:
                result = self.block(stmt.finalbody.body.body, result)
            return result
        if isinstance(stmt, cst.Match):
            return _join(state, *(self.block(b, state) for b in child_blocks(stmt)))
        return state

    def loop(self, stmt, state: State) -> State | None:
        head = state
        frame = _Loop()
        for _ in range(50):
            frame = _Loop()
            self.loops.append(frame)
            end = self.block(stmt.body.body, head)
            self.loops.pop()
            new_head = _join(state, end, *frame.continues)
            if new_head == head:
                break
            head = new_head
        exit_state = head
        if stmt.orelse is not None:
            exit_state = self.block(stmt.orelse.body.body, head)
        return _join(exit_state, *frame.breaks)

    def transfer(self, event: Event, state: State) -> State:
        state = dict(state)
        kind = event.kind
        if kind == "reset":
            for p in event.psets:
                state[p] = frozenset({("reset", id(event.stmt))})
            self.visited.add(id(event.stmt))
        elif kind == "backward":
            self._record(event, state, self.psets)
            for p in self.psets:
                state[p] = frozenset({("bw", id(event.stmt))})
        elif kind in TRANSFORMS:
            self._record(event, state, event.psets)
            for p in event.psets:
                state[p] = frozenset({("xf", id(event.stmt))})
        elif kind in READS:
            self._record(event, state, event.psets)
            if event.detail.get("reset"):
                for p in event.psets:
                    state[p] = frozenset({("reset", id(event.stmt))})
        else:
            self.visited.add(id(event.stmt))
        return state


@dataclass
class Liveness:
    zero_mode: dict[
        tuple[int, str], bool
    ]  # (backward, pset) -> G is provably zero there
    needed: set[tuple[Source, str]]  # (source, pset) whose value some read sees
    init_read: set[str]  # psets whose entry value is read


def liveness(flow: GradFlow, init_is_zero: bool) -> Liveness:
    events = flow.events

    def zero(sources: frozenset) -> bool:
        return all(s[0] == "reset" or (s == INIT and init_is_zero) for s in sources)

    zero_mode: dict[tuple[int, str], bool] = {}
    for key, seen in flow.incoming.items():
        if events[key].kind == "backward":
            for p, sources in seen.items():
                zero_mode[(key, p)] = zero(sources)
    needed: set[tuple[Source, str]] = set()
    work: list[tuple[Source, str]] = []
    for key, seen in flow.incoming.items():
        event = events[key]
        if event.kind in READS or event.kind in TRANSFORMS:
            for p in event.psets:
                for source in seen.get(p, ()):
                    work.append((source, p))
    init_read: set[str] = set()
    while work:
        item = work.pop()
        if item in needed:
            continue
        needed.add(item)
        (kind, key), p = item
        if kind == "init":
            init_read.add(p)
        elif kind == "bw" and not zero_mode.get((key, p), True) or kind == "xf":
            work.extend((s, p) for s in flow.incoming[key].get(p, ()))
    return Liveness(zero_mode, needed, init_read)
