"""TM406: `torch.Size` in a type annotation becomes `tuple`."""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.rule import API, Example, Rule, RuleMeta, register, torch_names_only

_SIZE = "torch.Size"

META = RuleMeta(
    id="TM406",
    title="`torch.Size` in an annotation becomes `tuple`",
    what="Rewrites `torch.Size` to `tuple` inside type annotations. Other uses are left alone: "
    "`isinstance(v, torch.Size)` tells shapes from other tuples, which MindSpore cannot, and a tuple "
    "has no `numel()`.",
    why="A torch shape is a `torch.Size`, a subclass of `tuple`; a MindSpore shape (`Tensor.shape`) is "
    "a plain `tuple`, so the annotation names the same kind of value.",
    use_instead="`tuple` (or `Tuple[int, ...]`).",
    examples=(
        Example(
            before="import math\n\nimport torch\n\n\ndef area(shape: torch.Size) -> int:\n"
            "    return shape[0] * shape[1]\n",
            after="import math\n\n\ndef area(shape: tuple) -> int:\n"
            "    return shape[0] * shape[1]\n",
        ),
    ),
    severity="note",
    family="api",
)


@register
class SizeTypeRule(Rule):
    meta = META
    stage = API
    order = 50
    triggers = ("Size",)
    # Rewrites names inside marked statements' annotations only.
    unmarked_words = ()

    def __init__(self) -> None:
        self.annotation_depth = 0

    def visit_Annotation(self, node: cst.Annotation, ctx: ModuleContext) -> None:
        self.annotation_depth += 1

    def leave_Annotation(self, original: cst.Annotation, updated, ctx: ModuleContext):
        self.annotation_depth -= 1
        return updated

    def _type(self, original, updated, ctx: ModuleContext):
        if (
            self.annotation_depth == 0
            or ctx.qualname(original) != _SIZE
            or "tuple" in ctx.bound_names
        ):
            return updated
        ctx.applied.add(META.id)
        return cst.Name("tuple")

    @torch_names_only
    def leave_Attribute(self, original: cst.Attribute, updated, ctx: ModuleContext):
        return self._type(original, updated, ctx)

    @torch_names_only
    def leave_Name(self, original: cst.Name, updated, ctx: ModuleContext):
        if original.value not in ctx.aliases:
            return updated
        return self._type(original, updated, ctx)
