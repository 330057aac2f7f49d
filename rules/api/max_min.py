"""`torch.max` / `torch.min` and the Tensor methods: a dim or another tensor.

torch reads the second argument as a dim when it is an int (`torch.max(x, 1)`: values and
indices) and as another tensor otherwise (`torch.max(a, b)`: the elementwise maximum, MindSpore's
`ops.maximum`; `ops.max` refuses a tensor there). Where the source shows which it is (an int
literal, `dim=`, `other=`, a value only tensors produce) the idiom is written; where it does not (a
name: `torch.max(x, d)`), the companion's `torch_max` decides when the program runs.
"""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext

# torch name -> (the torch function of the two-tensor form, the companion entry for an unknown one)
PAIRWISE = {
    "torch.max": ("torch.maximum", "torch_max"),
    "torch.min": ("torch.minimum", "torch_min"),
}
# Tensor method name -> the companion entry that decides for an unknown argument.
METHOD_ENTRIES = {"max": "tensor_max", "min": "tensor_min"}
DIM, TENSOR, UNKNOWN, NONE = "dim", "tensor", "unknown", "none"


def _int_literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    return isinstance(node, cst.Integer)


def second_argument(
    call: cst.Call, ctx: ModuleContext, tensor_methods: frozenset[str], first: int
) -> str:
    """What the argument after the input is: DIM, TENSOR, UNKNOWN, or NONE (there is none).
    ``first`` is the index of that argument among the positionals (1 for `torch.max(x, ...)`, 0
    for `x.max(...)`)."""
    if any(a.star for a in call.args):
        return UNKNOWN
    keywords = {a.keyword.value for a in call.args if a.keyword is not None}
    if "other" in keywords:
        return TENSOR
    if "dim" in keywords or "axis" in keywords:
        return DIM
    positional = [a.value for a in call.args if a.keyword is None]
    if len(positional) <= first:
        return NONE
    value = positional[first]
    if _int_literal(value):
        return DIM
    if isinstance(value, cst.Call):
        qualified = ctx.qualname(value.func) or ""
        if qualified.startswith("torch.") and qualified.rsplit(".", 1)[1] not in (
            "numel",
            "is_tensor",
            "get_default_dtype",
        ):
            return TENSOR
        if (
            isinstance(value.func, cst.Attribute)
            and value.func.attr.value in tensor_methods
        ):
            return TENSOR
    return UNKNOWN


# Methods and functions whose result is torch's (values, indices) pair, read by field name
# (`x.max(dim=1).values`): MindSpore returns a plain tuple in the same order. The reductions
# return the pair only with a dim.
_PAIRS = frozenset({"topk", "sort", "cummax", "cummin", "kthvalue", "mode"})
_PAIRS_WITH_DIM = frozenset({"max", "min", "median", "nanmedian"})
# No other library's objects have these methods.
_TENSOR_ONLY_PAIRS = frozenset({"topk", "kthvalue"})
PAIR_NAMES = _PAIRS | _PAIRS_WITH_DIM
FIELDS = {"values": 0, "indices": 1}


def pair_result(
    call: cst.BaseExpression,
    ctx: ModuleContext,
    tensor_methods: frozenset[str],
    certainly_tensor,
) -> bool:
    """Whether ``call`` (the original node) returns torch's (values, indices) pair."""
    if not isinstance(call, cst.Call):
        return False
    qualified = ctx.qualname(call.func)
    if qualified is not None:
        module, _, leaf = qualified.rpartition(".")
        if module != "torch":
            return False
        first = 1
    elif isinstance(call.func, cst.Attribute):
        leaf = call.func.attr.value
        if leaf not in _TENSOR_ONLY_PAIRS and not certainly_tensor(call):
            return False
        first = 0
    else:
        return False
    if leaf in _PAIRS:
        return True
    return (
        leaf in _PAIRS_WITH_DIM
        and second_argument(call, ctx, tensor_methods, first) == DIM
    )
