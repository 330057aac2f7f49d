"""TM336: `Module.get_submodule(path)` and `Module.get_parameter(path)` become companion calls."""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.rule import API, Example, Rule, RuleMeta, register

ENTRIES = {"get_submodule": "get_submodule", "get_parameter": "get_parameter"}

META = RuleMeta(
    id="TM336",
    title="get_submodule/get_parameter become companion calls",
    what="Rewrites `m.get_submodule('a.b')` and `m.get_parameter('a.b.weight')` to "
    "`ms_aux.get_submodule(m, 'a.b')` and `ms_aux.get_parameter(m, 'a.b.weight')`.",
    why="MindSpore's Cell has no method to reach a sub-cell or parameter by a dotted path; the "
    "companion walks the attributes as torch does, and leaves any other object to its own "
    "method.",
    use_instead="`functools.reduce(getattr, 'a.b'.split('.'), m)`.",
    examples=(
        Example(
            before="import torch\n\n\ndef head(model: torch.nn.Module):\n"
            "    return model.get_submodule('lm_head')\n",
            after="from mindspore import nn\nimport ms_aux\n\n\ndef head(model: nn.Cell):\n"
            "    return ms_aux.get_submodule(model, 'lm_head')\n",
        ),
    ),
    severity="note",
    family="nn",
)


@register
class SubmodulesRule(Rule):
    meta = META
    stage = API
    order = 60
    triggers = tuple(ENTRIES)
    methods = frozenset(ENTRIES)

    def leave_Call(self, original: cst.Call, updated: cst.Call, ctx: ModuleContext):
        func = updated.func
        if (
            not isinstance(func, cst.Attribute)
            or func.attr.value not in ENTRIES
            or ctx.qualname(func.value) is not None
            or ctx.on_imported(func.value)
            or any(a.star for a in updated.args)
        ):
            return updated
        ctx.applied.add(META.id)
        return cst.Call(
            ctx.companion(ENTRIES[func.attr.value]),
            [cst.Arg(func.value), *updated.args],
        )
