"""`x.type(...)`: torch's cast by dtype or type name, and the type name itself.

`x.type(y.type())` casts `x` to `y`'s type: `x.astype(y.dtype)`. Without a dtype, torch returns the
type's name ('torch.FloatTensor', where MindSpore's `type()` says 'Float32'); with a value that is
not a dtype written out, it may be such a name. Those calls go through the companion's
`tensor_type`, which reads torch's names when the program runs.
"""

from __future__ import annotations

import libcst as cst

from ...migrator.context import CONVERTED_CALLS, ModuleContext
from ..companion import MODULE as COMPANION
from .source_args import DTYPE_NAMES


def _type_of(node: cst.BaseExpression) -> cst.BaseExpression | None:
    """`y` of `y.type()`, or of `ms_aux.tensor_type(y)` as that call is converted first."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
        return None
    if node.func.attr.value == "type" and not node.args:
        return node.func.value
    if (
        node.func.attr.value == "tensor_type"
        and isinstance(node.func.value, cst.Name)
        and node.func.value.value == COMPANION
        and len(node.args) == 1
    ):
        return node.args[0].value
    return None


def _written_dtype(node: cst.BaseExpression, ctx: ModuleContext) -> bool:
    """`torch.float16`, `mindspore.float16`, `x.dtype`: a dtype written out."""
    return isinstance(node, cst.Attribute) and (
        node.attr.value in DTYPE_NAMES | {"dtype"} and ctx.dotted(node) is not None
    )


def tensor_type(
    original: cst.Call, updated: cst.Call, ctx: ModuleContext
) -> cst.BaseExpression | None:
    """The converted form of the call `x.type(...)`, or None to leave it to the table."""
    func = updated.func
    # `non_blocking` (second positional or by name) only makes the copy asynchronous.
    kept = [
        a
        for i, a in enumerate(updated.args)
        if not (a.keyword is None and not a.star and i == 1)
        and not (a.keyword is not None and a.keyword.value == "non_blocking")
    ]
    stripped = len(kept) == 1 and len(kept) < len(updated.args) and not kept[0].star
    if stripped:
        updated = updated.with_changes(
            args=[kept[0].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
        )
        original = original.with_changes(args=[original.args[0]])
    if not isinstance(func, cst.Attribute) or any(
        a.star or (a.keyword is not None and a.keyword.value != "dtype")
        for a in updated.args
    ):
        return None
    if len(original.args) == 1 and _type_of(original.args[0].value) is not None:
        source = _type_of(updated.args[0].value)
        if source is None:
            return None
        ctx.applied.add("TM402")
        return cst.Call(
            cst.Attribute(func.value, cst.Name("astype")),
            [cst.Arg(cst.Attribute(source, cst.Name("dtype")))],
        )
    if len(updated.args) == 1 and _written_dtype(updated.args[0].value, ctx):
        if not stripped:
            return None  # the table's row
        ctx.applied.add("TM402")
        return updated
    if len(updated.args) > 1:
        return None
    ctx.applied.add("TM402")
    new = cst.Call(
        ctx.companion("tensor_type"),
        [
            cst.Arg(func.value),
            *[
                a.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)
                for a in updated.args
            ],
        ],
    )
    ctx.state.setdefault(CONVERTED_CALLS, set()).add(id(new))
    ctx.keep.append(new)
    return new
