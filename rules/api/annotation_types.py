"""TM416: torch's typed tensor classes in annotations become `mindspore.Tensor`."""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.rule import API, Example, Rule, RuleMeta, register, torch_names_only

_KINDS = (
    "Float",
    "Double",
    "Half",
    "BFloat16",
    "Byte",
    "Char",
    "Short",
    "Int",
    "Long",
    "Bool",
)
# `torch.LongTensor`, `torch.cuda.FloatTensor`: the legacy classes named by element type.
TYPED_TENSORS = frozenset(
    f"{prefix}.{kind}Tensor" for prefix in ("torch", "torch.cuda") for kind in _KINDS
)

META = RuleMeta(
    id="TM416",
    title="Typed tensor classes in annotations become `mindspore.Tensor`",
    what="Rewrites `torch.LongTensor`, `torch.FloatTensor` and the other classes named by "
    "element type to `mindspore.Tensor` inside type annotations. Other uses (`torch.LongTensor(3)`, "
    "`isinstance(x, torch.FloatTensor)`) are left to the API table: there the class is a "
    "constructor or a dtype test.",
    why="In an annotation the class only says 'a tensor'; MindSpore has one tensor class, and the "
    "element type is a property of the value (`x.dtype`). An annotation is evaluated where the "
    "function is defined, so a name left on torch would need torch to import the module.",
    use_instead="`mindspore.Tensor` (the dtype, if it matters, in a comment or docstring).",
    examples=(
        Example(
            before="import torch\n\n\ndef embed(ids: torch.LongTensor | None = None) -> "
            "torch.FloatTensor:\n    return ids\n",
            after="import mindspore\n\n\ndef embed(ids: mindspore.Tensor | None = None) -> "
            "mindspore.Tensor:\n    return ids\n",
        ),
    ),
    severity="note",
    family="api",
)


@register
class AnnotationTypesRule(Rule):
    meta = META
    stage = API
    order = 50
    triggers = ("Tensor",)
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
        if self.annotation_depth == 0 or ctx.qualname(original) not in TYPED_TENSORS:
            return updated
        ctx.applied.add(META.id)
        return ctx.name("mindspore.Tensor")

    @torch_names_only
    def leave_Attribute(self, original: cst.Attribute, updated, ctx: ModuleContext):
        return self._type(original, updated, ctx)

    @torch_names_only
    def leave_Name(self, original: cst.Name, updated, ctx: ModuleContext):
        if original.value not in ctx.aliases:
            return updated
        return self._type(original, updated, ctx)
