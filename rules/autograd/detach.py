"""TM104: `.detach()` becomes `ops.stop_gradient`."""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.rule import GRADIENT, Example, Rule, RuleMeta, register


@register
class DetachRule(Rule):
    meta = RuleMeta(
        id="TM104",
        title="`.detach()` becomes `ops.stop_gradient`",
        what="Rewrites `t.detach()` and `torch.detach(t)` as `ops.stop_gradient(t)`.",
        why="`detach` returns the same values cut from the recorded graph. MindSpore records no "
        "graph; inside a function given to `mindspore.grad` the cut is `ops.stop_gradient`, and "
        "outside one it returns its input unchanged, as `detach` does for values.",
        use_instead="`ops.stop_gradient(t)`.",
        examples=(
            Example(
                before="import torch\n\ndef target(q, r):\n    return (r + 0.9 * q).detach()\n",
                after="from mindspore import ops\n\ndef target(q, r):\n    return ops.stop_gradient(r + 0.9 * q)\n",
            ),
        ),
        family="autograd",
    )
    stage = GRADIENT
    order = 104
    triggers = ("detach",)
    methods = frozenset({"detach", "detach_"})
    torch_only_methods = frozenset({"detach_"})

    def leave_Call(self, original: cst.Call, updated: cst.Call, ctx: ModuleContext):
        func = updated.func
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value == "detach"
            and not updated.args
            and not ctx.is_torch_name(func)
        ):
            ctx.applied.add("TM104")
            value = func.value
            if getattr(value, "lpar", None):
                value = value.with_changes(lpar=[], rpar=[])
            return cst.Call(ctx.name("mindspore.ops.stop_gradient"), [cst.Arg(value)])
        if (
            ctx.qualname(original.func) == "torch.detach"
            and len(updated.args) == 1
            and updated.args[0].keyword is None
            and not updated.args[0].star
        ):
            # `torch.detach(t)`, the function form of `t.detach()`.
            ctx.applied.add("TM104")
            return cst.Call(
                ctx.name("mindspore.ops.stop_gradient"),
                [updated.args[0].with_changes(comma=cst.MaybeSentinel.DEFAULT)],
            )
        return updated
