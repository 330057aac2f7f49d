"""Calls of torch's own layers with torch's keyword for the input: `conv(input=x)`.

torch's layers name the tensor of `forward` `input`; MindSpore's `construct` names it otherwise
(`x`, `logits`...), and the companion's layer classes keep MindSpore's names. The one tensor of
the call is passed by position, which means the same to both.
"""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext
from .common import current_class
from .facts import cst_kind, facts


def positional_input(
    original: cst.Call,
    updated: cst.Call,
    ctx: ModuleContext,
    class_name: str | None = None,
) -> cst.Call:
    """`layer(input=x)` -> `layer(x)` when `layer` holds one of torch's layers (the file's facts
    say so); any other call is returned as it is."""
    if len(updated.args) != 1:
        return updated
    arg = updated.args[0]
    if arg.keyword is None or arg.keyword.value != "input":
        return updated
    owner = class_name if class_name is not None else current_class(ctx)
    kind = cst_kind(original.func, facts(ctx), owner)
    if kind is None or not kind.startswith("layer:"):
        return updated
    ctx.applied.add("TM301")
    return updated.with_changes(
        args=[
            arg.with_changes(
                keyword=None,
                equal=cst.MaybeSentinel.DEFAULT,
                comma=cst.MaybeSentinel.DEFAULT,
            )
        ]
    )
