"""`torch.max` / `torch.min` and the Tensor methods: a dim or another tensor.

torch reads the second argument as a dim when it is an int (`torch.max(x, 1)`: values and
indices) and as another tensor otherwise (`torch.max(a, b)`: the elementwise maximum, MindSpore's
`ops.maximum`; `ops.max` refuses a tensor there). Where the source shows which it is (an int
literal, `dim=`, `other=`, a value only tensors produce) the idiom is written; where it does not (a
name: `torch.max(x, d)`), the companion's `torch_max` decides when the program runs.
"""

from __future__ import annotations

import libcst as cst

from ...migrator.context import CONVERTED_CALLS, ModuleContext
from . import BY_TORCH_NAME
from .receivers import out_is_input
from .source_args import split_call

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


def max_min_method(
    original: cst.Call,
    call: cst.Call,
    ctx: ModuleContext,
    tensor_methods: frozenset[str],
) -> cst.BaseExpression | None:
    """`x.max(other)`: `ops.maximum(x, other)` where `other` is certainly a tensor, the
    companion's `tensor_max` where it may be a dim; None for a dim or no argument (MindSpore's
    method takes those as torch's does)."""
    func: cst.Attribute = call.func  # type: ignore[assignment]
    receiver = func.value
    if isinstance(receiver, cst.Name) and receiver.value in ("self", "cls"):
        return None
    form = second_argument(original, ctx, tensor_methods, 0)
    if form in (DIM, NONE) or any(
        a.keyword is not None and a.keyword.value in ("out", "keepdim")
        for a in call.args
    ):
        return None
    ctx.applied.add("TM402")
    if form == TENSOR and len(call.args) == 1:
        torch_name = PAIRWISE["torch." + func.attr.value][0]
        other = call.args[0].with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)
        return cst.Call(
            ctx.name(BY_TORCH_NAME[torch_name].mindspore), [cst.Arg(receiver), other]
        )
    result = cst.Call(
        ctx.companion(METHOD_ENTRIES[func.attr.value]), [cst.Arg(receiver), *call.args]
    )
    ctx.state.setdefault(CONVERTED_CALLS, set()).add(id(result))
    ctx.keep.append(result)
    return result


def decided_at_run_time(entry: str, call: cst.Call, ctx: ModuleContext):
    """``ms_aux.<entry>(<the call's arguments>)``; `torch.max(a, b, out=a)` standing alone becomes
    ``ops.assign(a, ms_aux.<entry>(a, b))``; another `out=` is left to the table's finding."""
    parts = split_call(call)
    into = out_is_input(*parts, call, ctx) if parts is not None else None
    if into is None and any(
        a.keyword is not None and a.keyword.value == "out" for a in call.args
    ):
        return call
    ctx.applied.add("TM401")
    args = [
        a for a in call.args if not (a.keyword is not None and a.keyword.value == "out")
    ]
    if len(args) < len(call.args):
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    value = call.with_changes(func=ctx.companion(entry), args=args)
    if into is None:
        return value
    return cst.Call(
        ctx.name("mindspore.ops.assign"), [cst.Arg(into.deep_clone()), cst.Arg(value)]
    )
