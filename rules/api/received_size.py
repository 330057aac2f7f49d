"""TM415: `x.size()` in a file that never imports torch works on a tensor it receives."""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.rule import API, Example, Rule, RuleMeta, register

META = RuleMeta(
    id="TM415",
    title="`x.size()` on a value a torch-free file receives decides at run time",
    what="In a file that does not import torch, `x.size()` and `x.size(dim)` become "
    "`ms_aux.tensor_size(x)` / `ms_aux.tensor_size(x, dim)`: the shape (or one size) of a "
    "MindSpore tensor, and the object's own `size(...)` for anything else.",
    why="Code that only receives tensors (timm's `utils.accuracy(output, target)`) never imports "
    "torch, so nothing marks it as torch code, yet `output.size()[1]` is torch's Tensor.size. A "
    "MindSpore tensor's `size` is its element count (an int): calling it fails.",
    use_instead="`x.shape` (or `x.shape[dim]`) where `x` is known to be a tensor.",
    examples=(
        Example(
            before="def accuracy(output, target):\n"
            "    maxk = output.size()[1]\n"
            "    return maxk, target.size(0)\n",
            after="import ms_aux\ndef accuracy(output, target):\n"
            "    maxk = ms_aux.tensor_size(output)[1]\n"
            "    return maxk, ms_aux.tensor_size(target, 0)\n",
        ),
    ),
    severity="note",
    family="api",
)


@register
class ReceivedSizeRule(Rule):
    meta = META
    stage = API
    triggers = (".size(",)
    # Rewrites `.size()` calls where the walk enters only.
    unmarked_words = ()
    # Runs on files that never name torch: the only rule that does.
    torch_free = True

    def leave_Call(self, original, updated: cst.Call, ctx: ModuleContext):
        if ctx.aliases:
            return updated  # a torch file: the API rules map `.size()` there
        func = updated.func
        if (
            not isinstance(func, cst.Attribute)
            or func.attr.value != "size"
            or len(updated.args) > 1
            or any(a.keyword is not None or a.star for a in updated.args)
        ):
            return updated
        ctx.applied.add(META.id)
        return updated.with_changes(
            func=ctx.companion("tensor_size"),
            args=[cst.Arg(func.value), *updated.args],
        )
