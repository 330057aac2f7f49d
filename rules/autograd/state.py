"""Per-module facts the autograd rules share through ``ctx.state``."""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext

LEAVES = "autograd.leaves"
NO_GRAD = "autograd.no_grad"
CLAIMED = "training.claimed"
WORDS = "autograd.words"


def may_name(ctx: ModuleContext, word: str) -> bool:
    """Whether the tree can hold ``word`` in a name or a qualified torch name: the source spells
    it, or a torch alias the module inherits does. The rules never write the torch words the
    autograd rules ask about (`backward`, `autograd`, `no_grad`...)."""
    words = ctx.state.setdefault(WORDS, {})
    known = words.get(word)  # type: ignore[union-attr]
    if known is None:
        known = word in ctx.source or any(word in t for t in ctx.aliases.values())
        words[word] = known  # type: ignore[index]
    return known


def claimed(ctx: ModuleContext) -> set[int]:
    """Statements the training rules (TM2xx) took over; read defensively."""
    value = ctx.state.get(CLAIMED)
    return value if isinstance(value, (set, frozenset)) else set()


def record_leaves(
    ctx: ModuleContext,
    statement: cst.CSTNode,
    names: list[str],
    keep: bool,
    original: cst.CSTNode,
) -> None:
    """``statement`` makes ``names`` leaves; ``keep`` is False for a bare ``x.requires_grad_()``.
    ``original`` is the statement before the flags were dropped, restored when a gradient fails."""
    table = ctx.state.setdefault(LEAVES, {})
    table[id(statement)] = (statement, names, keep, original)  # type: ignore[index]


def leaf_names_of(
    ctx: ModuleContext, statement: cst.CSTNode
) -> tuple[list[str], bool] | None:
    table = ctx.state.get(LEAVES)
    if not table:
        return None
    entry = table.get(id(statement))  # type: ignore[union-attr]
    if entry is None or entry[0] is not statement:
        return None
    return entry[1], entry[2]


def no_grad_statements(ctx: ModuleContext) -> set[int]:
    return ctx.state.setdefault(NO_GRAD, set())  # type: ignore[return-value]


def original_of(ctx: ModuleContext, statement: cst.CSTNode) -> cst.CSTNode | None:
    table = ctx.state.get(LEAVES) or {}
    entry = table.get(id(statement))  # type: ignore[union-attr]
    return entry[3] if entry is not None and entry[0] is statement else None
