"""TM420: `~x` becomes the companion's `invert(x)` unless `x` is certainly a bool value."""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.rule import API, Example, Rule, RuleMeta, register

META = RuleMeta(
    id="TM420",
    title="`~x` keeps torch's bitwise not on integer tensors",
    what="Rewrites `~x` to `ms_aux.invert(x)`, which applies `ops.invert` to an integer "
    "MindSpore tensor and `~` to anything else (a bool tensor, a Python int). An operand that is "
    "certainly bool (a comparison, `isnan(...)`, `logical_and(...)`, `.bool()`) keeps `~`.",
    why="torch's `~` on an integer tensor is a bitwise not (`~5 == -6`); MindSpore's is a logical "
    "not there (`~5 == False`), so the values would differ without an error.",
    use_instead="`ops.invert(x)` on integer tensors, `~mask` (or `ops.logical_not`) on bool ones.",
    examples=(
        Example(
            before="import torch\n\ndef flip(bits, x):\n    return ~bits, ~(x > 0)\n",
            after="import ms_aux\n\ndef flip(bits, x):\n    return ms_aux.invert(bits), ~(x > 0)\n",
        ),
    ),
    severity="note",
    family="api",
)

# Calls whose result is a bool tensor (by their last name), whatever module they come from.
_BOOL_RESULTS = frozenset(
    [
        "isnan",
        "isinf",
        "isfinite",
        "isneginf",
        "isposinf",
        "isreal",
        "signbit",
        "logical_and",
        "logical_or",
        "logical_xor",
        "logical_not",
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "greater",
        "less",
        "greater_equal",
        "less_equal",
        "not_equal",
        "isin",
        "isclose",
        "bool",
        "any",
        "all",
    ]
)


def certainly_bool(node: cst.BaseExpression) -> bool:
    """Whether the expression's value is a bool (tensor) or a Python int, where `~` means the same
    on both frameworks."""
    if isinstance(node, (cst.Comparison, cst.Integer)):
        return True
    if isinstance(node, cst.UnaryOperation):
        return isinstance(node.operator, cst.Not) or certainly_bool(node.expression)
    if isinstance(node, cst.Name):
        return node.value in ("True", "False")
    if isinstance(node, cst.Call):
        func = node.func
        name = func.attr.value if isinstance(func, cst.Attribute) else None
        if isinstance(func, cst.Name):
            name = func.value
        return name in _BOOL_RESULTS
    return False


@register
class InvertRule(Rule):
    meta = META
    stage = API
    order = 60
    triggers = ("~",)
    # Rewrites `~` where the walk enters, in marked statements only.
    unmarked_words = ()

    def leave_UnaryOperation(
        self, original: cst.UnaryOperation, updated, ctx: ModuleContext
    ):
        if not isinstance(original.operator, cst.BitInvert) or certainly_bool(
            original.expression
        ):
            return updated
        operand = updated.expression.with_changes(lpar=[], rpar=[])
        ctx.applied.add(META.id)
        return cst.Call(
            ctx.companion("invert"),
            [cst.Arg(operand)],
            lpar=updated.lpar,
            rpar=updated.rpar,
        )
