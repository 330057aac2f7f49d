"""TM405: typing names imported through `torch.jit.annotations` are imported from `typing`."""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.rule import API, Example, Rule, RuleMeta, register

_MODULE = "torch.jit.annotations"
# The names `torch.jit.annotations` re-exports from `typing` (the same objects, checked on torch 2.13).
TYPING_NAMES = frozenset({"Any", "Dict", "List", "Optional", "Tuple", "Union"})

META = RuleMeta(
    id="TM405",
    title="`typing` names imported from `torch.jit.annotations` come from `typing`",
    what="Rewrites `from torch.jit.annotations import List, Tuple` to `from typing import List, Tuple` "
    "when every imported name is one that module takes from `typing` (`Any`, `Dict`, `List`, "
    "`Optional`, `Tuple`, `Union`); the annotations that use them stay as they are.",
    why="`torch.jit.annotations` re-exports these names from `typing`: they are the same objects, so "
    "the annotations mean the same without torch.",
    use_instead="`from typing import List, Tuple`.",
    examples=(
        Example(
            before="from torch.jit.annotations import List, Tuple\n\n\n"
            "def f(xs: List[int]) -> Tuple[int, int]:\n    return xs[0], xs[1]\n",
            after="from typing import List, Tuple\n\n\n"
            "def f(xs: List[int]) -> Tuple[int, int]:\n    return xs[0], xs[1]\n",
        ),
    ),
    severity="note",
    family="api",
)


@register
class JitAnnotationsRule(Rule):
    meta = META
    stage = API
    order = 50
    triggers = ("torch.jit.annotations",)

    def leave_ImportFrom(
        self, original: cst.ImportFrom, updated: cst.ImportFrom, ctx: ModuleContext
    ):
        if (
            original.relative
            or original.module is None
            or ctx.dotted(original.module) != _MODULE
            or isinstance(original.names, cst.ImportStar)
        ):
            return updated
        names = [alias.name for alias in original.names]
        if not all(
            isinstance(name, cst.Name) and name.value in TYPING_NAMES for name in names
        ):
            return updated
        locals_ = [
            alias.asname.name.value if alias.asname else alias.name.value
            for alias in original.names
        ]
        # The names now refer to `typing`, not to torch.
        for local in locals_:
            if ctx.aliases.get(local, "").startswith(_MODULE + "."):
                del ctx.aliases[local]
        ctx.applied.add(META.id)
        return updated.with_changes(module=cst.Name("typing"))
