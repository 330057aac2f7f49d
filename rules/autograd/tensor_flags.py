"""TM105: `requires_grad=True`, `requires_grad_()` and `Variable(t)` are dropped.

The statements that make leaves are recorded for TM101/TM102, which turn those leaves into the
positions of the extracted function.
"""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.rule import GRADIENT, Example, Rule, RuleMeta, register
from .state import record_leaves

VARIABLE = frozenset({"torch.autograd.Variable", "torch.autograd.variable.Variable"})
PARAMETER = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})
# Tensor methods that make a new tensor and take torch's factory keywords.
FACTORY_METHODS = frozenset(
    {"new_full", "new_ones", "new_zeros", "new_empty", "new_tensor"}
)


def _literal_bool(node: cst.BaseExpression) -> bool | None:
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return node.value == "True"
    return None


def _requires_grad_arg(call: cst.Call) -> cst.Arg | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "requires_grad":
            return arg
    return None


def _is_requires_grad_method(call: cst.Call) -> bool:
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "requires_grad_"):
        return False
    if not call.args:
        return True
    return len(call.args) == 1 and _literal_bool(call.args[0].value) is True


def _is_factory_method(call: cst.Call) -> bool:
    func = call.func
    return isinstance(func, cst.Attribute) and func.attr.value in FACTORY_METHODS


def _strip_arg(call: cst.Call, arg: cst.Arg) -> cst.Call:
    args = [a for a in call.args if a is not arg]
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return call.with_changes(args=args)


def makes_leaf(value: cst.BaseExpression, ctx: ModuleContext) -> bool:
    """True when ``value`` creates a tensor that requires grad (on the original code)."""
    if not isinstance(value, cst.Call):
        return False
    if _is_requires_grad_method(value):
        return True
    qualified = ctx.qualname(value.func)
    if qualified is None and not _is_factory_method(value):
        return False
    arg = _requires_grad_arg(value)
    if qualified in PARAMETER:
        return arg is None or _literal_bool(arg.value) is True
    return arg is not None and _literal_bool(arg.value) is True


@register
class TensorFlagsRule(Rule):
    meta = RuleMeta(
        id="TM105",
        title="`requires_grad`, `requires_grad_()` and `Variable` are dropped",
        what="Removes `requires_grad=True` (and the default `requires_grad=False`) from tensor "
        "factories, `.requires_grad_()` calls and `x.requires_grad = True` on plain tensors, and "
        "replaces `Variable(t, ...)` with `t`.",
        why="MindSpore tensors carry no tape flag: which values are differentiated is said by the "
        "`grad_position` and `weights` of `mindspore.grad` (seed: `x = mindspore.Tensor(1.0)` next "
        "to `torch.tensor(1.0, requires_grad=True)`). `Variable` has been a plain tensor since "
        "PyTorch 0.4. TM101/TM102 turn the tensors that required grad into the differentiated "
        "positions.",
        use_instead="`x = mindspore.Tensor(1.0)` and `mindspore.grad(fn, grad_position=0)(x)`.",
        examples=(
            Example(
                before="from torch.autograd import Variable\n\n"
                "def wrap(t, s):\n"
                "    v = Variable(t, requires_grad=True)\n"
                "    return v, s.requires_grad_()\n",
                after="\ndef wrap(t, s):\n    v = t\n    return v, s\n",
            ),
        ),
        family="autograd",
    )
    stage = GRADIENT
    order = 105
    triggers = ("requires_grad", "Variable")
    methods = frozenset({"requires_grad_"})
    torch_only_methods = frozenset({"requires_grad_"})

    def leave_Call(self, original: cst.Call, updated: cst.Call, ctx: ModuleContext):
        qualified = ctx.qualname(original.func)
        if qualified in VARIABLE:
            # Variable(data, requires_grad=False, volatile=False): the data, flags as literals
            positional = [a for a in updated.args if a.keyword is None]
            named = {a.keyword.value: a for a in updated.args if a.keyword is not None}
            data = named.pop("data", None) or (
                positional.pop(0) if positional else None
            )
            flags = [a.value for a in positional] + [
                a.value for k, a in named.items() if k in ("requires_grad", "volatile")
            ]
            known = (
                len(positional) <= 2
                and set(named) <= {"requires_grad", "volatile"}
                and all(_literal_bool(flag) is not None for flag in flags)
            )
            if data is not None and known:
                ctx.applied.add("TM105")
                return data.value
            return updated
        if _is_requires_grad_method(original):
            ctx.applied.add("TM105")
            return updated.func.value  # type: ignore[attr-defined]
        if (qualified is not None and qualified not in PARAMETER) or _is_factory_method(
            original
        ):
            arg = _requires_grad_arg(updated)
            if arg is not None and _literal_bool(arg.value) is not None:
                ctx.applied.add("TM105")
                return _strip_arg(updated, arg)
        return updated

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated, ctx: ModuleContext
    ):
        if len(original.body) != 1:
            return updated
        small = original.body[0]
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            target = small.targets[0].target
            if isinstance(target, cst.Name) and makes_leaf(small.value, ctx):
                record_leaves(ctx, updated, [target.value], True, original)
            elif (
                isinstance(target, cst.Attribute)
                and target.attr.value == "requires_grad"
                and isinstance(target.value, cst.Name)
                and _literal_bool(small.value) is True
            ):
                ctx.applied.add("TM105")
                record_leaves(ctx, updated, [target.value.value], False, original)
        elif (
            isinstance(small, cst.Expr)
            and isinstance(small.value, cst.Call)
            and _is_requires_grad_method(small.value)
        ):
            base = small.value.func.value  # type: ignore[attr-defined]
            if isinstance(base, cst.Name):
                record_leaves(ctx, updated, [base.value], False, original)
        return updated
