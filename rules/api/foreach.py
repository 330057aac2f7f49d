"""TM407: `torch._foreach_<op>(tensors, ...)` that returns a new list becomes a list comprehension."""

from __future__ import annotations

import bisect
import dataclasses
import re

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.engine import visit
from ...migrator.rule import API, Example, Rule, RuleMeta, register
from . import BY_TORCH_NAME
from .tm401 import plain

_PREFIX = "torch._foreach_"
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

META = RuleMeta(
    id="TM407",
    title="`torch._foreach_*` becomes a list comprehension or a loop of `ops.assign`",
    what="Rewrites `torch._foreach_<op>` calls whose element-wise `torch.<op>` the API table maps as it "
    "is. An out-of-place call becomes a list comprehension: `torch._foreach_sqrt(xs)` becomes "
    "`[ops.sqrt(_t) for _t in xs]`, `torch._foreach_div(xs, [a, b])` becomes "
    "`[ops.div(_t, _t1) for _t, _t1 in zip(xs, [a, b])]`. An in-place call standing as a statement "
    "becomes a loop that assigns each tensor its new value: `torch._foreach_mul_(xs, 0.5)` becomes "
    "`for _t in xs: ops.assign(_t, ops.mul(_t, 0.5))`; an operand that is not a constant (`-lr`) is "
    "evaluated once before the loop, as torch does, since it may depend on a tensor the loop changes. "
    "Every other operand must be visibly a list (a "
    "display, a comprehension, or a name the function binds only to lists and hands to `_foreach` ops "
    "as their tensor list) or visibly not one (a number, or an expression no list supports, such as "
    "`-x`, `1 - x`, `x / y`) and free of calls, since a comprehension evaluates it once per tensor. "
    "`alpha=` is left alone.",
    why="A `_foreach` op applies `torch.<op>` to each tensor of its first list, taking a list operand "
    "pair by pair and sharing a scalar or tensor one; the in-place forms change each tensor. MindSpore "
    "has no `_foreach` ops; the comprehension computes the same list, and `ops.assign` changes a tensor "
    "in place as the TM402 in-place methods do (MindSpore 2.10's CPU `mul_` returns the result without "
    "changing the tensor).",
    use_instead="`[ops.<op>(t, s) for t in tensors]`; `for t in tensors: ops.assign(t, ops.<op>(t, s))`.",
    examples=(
        Example(
            before="import torch\n\nroots = torch._foreach_sqrt(squares)\n"
            "steps = torch._foreach_div(grads, [2.0, 3.0])\n"
            "torch._foreach_mul_(grads, -lr)\n",
            after="from mindspore import ops\n\nroots = [ops.sqrt(_t) for _t in squares]\n"
            "steps = [ops.div(_t, _t1) for _t, _t1 in zip(grads, [2.0, 3.0])]\n"
            "_s = -lr\nfor _t in grads:\n    ops.assign(_t, ops.mul(_t, _s))\n",
        ),
        Example(
            before="import torch\n\n\ndef update(params, exp_avgs, lr):\n"
            "    denom = torch._foreach_sqrt(exp_avgs)\n"
            "    torch._foreach_addcdiv_(params, exp_avgs, denom, value=-lr)\n",
            after="from mindspore import ops\n\n\ndef update(params, exp_avgs, lr):\n"
            "    denom = [ops.sqrt(_t) for _t in exp_avgs]\n"
            "    _s = -lr\n"
            "    for _t, _t1, _t2 in zip(params, exp_avgs, denom):\n"
            "        ops.assign(_t, ops.addcdiv(_t, _t1, _t2, value=_s))\n",
        ),
    ),
    severity="note",
    family="api",
)

# Operators no list (or tuple) supports: their result is a number or a tensor, never a list.
_NON_LIST_OPERATORS = (
    cst.Subtract,
    cst.Divide,
    cst.FloorDivide,
    cst.Power,
    cst.Modulo,
)


def _pure(node: cst.BaseExpression) -> bool:
    """Names, attributes, numbers and operators only: the same value however often it is evaluated."""
    if isinstance(node, (cst.Name, cst.Integer, cst.Float)):
        return True
    if isinstance(node, cst.Attribute):
        return _pure(node.value)
    if isinstance(node, cst.UnaryOperation):
        return _pure(node.expression)
    if isinstance(node, cst.BinaryOperation):
        return _pure(node.left) and _pure(node.right)
    return False


def _not_a_list(node: cst.BaseExpression) -> bool:
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    if isinstance(node, cst.UnaryOperation):
        return isinstance(node.operator, (cst.Minus, cst.Plus))
    if isinstance(node, cst.BinaryOperation):
        if isinstance(node.operator, _NON_LIST_OPERATORS):
            return True
        # `+` and `*` build lists only from a list operand.
        return _not_a_list(node.left) and _not_a_list(node.right)
    return False


def _constant(node: cst.BaseExpression) -> bool:
    """Numbers and operators only."""
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    if isinstance(node, cst.UnaryOperation):
        return _constant(node.expression)
    if isinstance(node, cst.BinaryOperation):
        return _constant(node.left) and _constant(node.right)
    return False


def _is_list(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.List, cst.Tuple, cst.ListComp))


class _ListNames(cst.CSTVisitor):
    """Names a function certainly holds lists in: the function binds the name, every binding is a
    parameter or a list (a display, a comprehension, an out-of-place `_foreach` result), and the name
    is a `_foreach` op's tensor list or assigned such a list."""

    def __init__(self, ctx: ModuleContext) -> None:
        super().__init__()
        self.ctx = ctx
        self.listed: set[str] = set()
        self.assigned: set[str] = set()
        self.other: set[str] = set()

    def _bound(
        self, target: cst.BaseExpression, value: cst.BaseExpression | None
    ) -> None:
        if isinstance(target, cst.Name):
            if value is not None and (_is_list(value) or self._foreach(value)):
                self.listed.add(target.value)
                self.assigned.add(target.value)
            else:
                self.other.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bound(element.value, None)
        elif isinstance(target, cst.StarredElement):
            self._bound(target.value, None)

    def _foreach(self, node: cst.BaseExpression) -> bool:
        if not isinstance(node, cst.Call):
            return False
        name = self.ctx.qualname(node.func) or ""
        return name.startswith(_PREFIX)

    def visit_Call(self, node: cst.Call) -> None:
        if (
            self._foreach(node)
            and node.args
            and isinstance(node.args[0].value, cst.Name)
        ):
            self.listed.add(node.args[0].value.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._bound(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bound(node.target, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bound(node.target, None)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bound(node.target, None)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._bound(node.target, None)

    def visit_For(self, node: cst.For) -> None:
        self._bound(node.target, None)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._bound(node.name, None)

    def visit_Del(self, node: cst.Del) -> None:
        self._bound(node.target, None)

    def visit_Global(self, node: cst.Global) -> None:
        self.other.update(n.name.value for n in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.other.update(n.name.value for n in node.names)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        # A nested function's names are its own.
        self.other.add(node.name.value)
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.other.add(node.name.value)
        return False

    def visit_Import(self, node: cst.Import) -> None:
        self.other.update(
            (
                a.asname.name.value
                if a.asname
                else (self.ctx.dotted(a.name) or "").split(".")[0]
            )
            for a in node.names
            if not a.asname or isinstance(a.asname.name, cst.Name)
        )

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if not isinstance(node.names, cst.ImportStar):
            self.other.update(
                a.asname.name.value if a.asname else a.name.value for a in node.names
            )

    def names(self, params: set[str]) -> frozenset[str]:
        # A name the function does not bind may be rebound elsewhere between two uses.
        return frozenset((self.listed & (self.assigned | params)) - self.other)


# Element-wise ops whose torch form takes a `value=` multiplier that MindSpore's takes by the same name.
_VALUE = frozenset({"torch.addcdiv", "torch.addcmul"})


def _may_call_foreach(node: cst.FunctionDef, ctx: ModuleContext) -> bool:
    """Whether a function's lines name a `_foreach_` function (or the module binds one under
    another name): only there are its list names read."""
    lines = ctx.lines_with(_PREFIX.rsplit(".", 1)[1])
    info = ctx.statements.get(id(node))
    if lines is None or info is None:
        return True
    if any(
        _PREFIX[:-1] in target and local not in target
        for local, target in ctx.aliases.items()
    ):
        return True
    i = bisect.bisect_left(lines, info.line)
    return i < len(lines) and lines[i] <= info.end_line


@register
class ForeachRule(Rule):
    meta = META
    stage = API
    order = 50
    triggers = ("_foreach_",)

    def __init__(self) -> None:
        self.lists: list[tuple[int, frozenset[str]]] = []
        # Every identifier of the module: loop names and hoisted values avoid them all.
        self.identifiers: frozenset[str] | None = None

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx: ModuleContext) -> None:
        if not _may_call_foreach(node, ctx):
            self.lists.append((id(node), frozenset()))
            return
        found = _ListNames(ctx)
        visit(node.body, found)
        params = node.params
        plain_params: set[str] = set()
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            if param.default is not None:
                found.other.add(param.name.value)
            else:
                plain_params.add(param.name.value)
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                found.other.add(star.name.value)
        self.lists.append((id(node), found.names(plain_params)))

    def leave_FunctionDef(self, original, updated, ctx: ModuleContext):
        if self.lists and self.lists[-1][0] == id(original):
            self.lists.pop()
        return updated

    def _is_list_operand(self, node: cst.BaseExpression) -> bool:
        return _is_list(node) or (
            isinstance(node, cst.Name)
            and bool(self.lists)
            and node.value in self.lists[-1][1]
        )

    def _translate(
        self, original: cst.Call, updated: cst.Call, ctx: ModuleContext, inplace: bool
    ) -> (
        tuple[cst.Call, cst.BaseAssignTargetExpression, cst.BaseExpression, str, list]
        | None
    ):
        """The element-wise call, the loop target, the iterable, the element's name, and the
        (name, value) of operands the in-place loop must evaluate once, before changing tensors
        they may depend on."""
        qualified = ctx.qualname(original.func) or ""
        if not qualified.startswith(_PREFIX) or qualified.endswith("_") != inplace:
            return None
        leaf = (
            qualified[len(_PREFIX) :].rstrip("_")
            if inplace
            else qualified[len(_PREFIX) :]
        )
        torch_name = "torch." + leaf
        mapping = BY_TORCH_NAME.get(torch_name)
        if (
            mapping is None
            or mapping.kind != "function"
            # keywords the row refuses (`alpha=`) are never passed here
            or not plain(dataclasses.replace(mapping, unsafe_args={}))
            or not mapping.valid_on(ctx.options.target)
            or "zip" in ctx.bound_names
        ):
            return None
        operands: list[cst.BaseExpression] = []
        value: cst.BaseExpression | None = None
        for arg in updated.args:
            if arg.star:
                return None
            if arg.keyword is None:
                if value is not None:
                    return None
                operands.append(arg.value)
            elif arg.keyword.value == "value" and torch_name in _VALUE:
                value = arg.value
            else:
                return None
        if torch_name in _VALUE and value is None and len(operands) == 4:
            value = operands.pop()
        if not 1 <= len(operands) <= len(mapping.params):
            return None
        if self.identifiers is None:
            self.identifiers = frozenset(_IDENTIFIER.findall(ctx.source))
        used = self.identifiers | set(
            _IDENTIFIER.findall(cst.Module([]).code_for_node(updated))
        )
        names = iter(f"_t{i}" if i else "_t" for i in range(1000))
        values = iter(f"_s{i}" if i else "_s" for i in range(1000))
        element = next(n for n in names if n not in used)
        hoisted: list[tuple[str, cst.BaseExpression]] = []
        lists: list[cst.BaseExpression] = [operands[0]]
        targets: list[str] = [element]
        call_args: list[cst.Arg] = [cst.Arg(cst.Name(element))]
        for operand in [*operands[1:], *([value] if value is not None else [])]:
            if self._is_list_operand(operand):
                partner = next(n for n in names if n not in used)
                lists.append(operand)
                targets.append(partner)
                item: cst.BaseExpression = cst.Name(partner)
            elif _not_a_list(operand) and _pure(operand):
                item = operand
                if inplace and not _constant(operand):
                    name = next(n for n in values if n not in used)
                    hoisted.append((name, operand))
                    item = cst.Name(name)
            else:
                return None
            call_args.append(cst.Arg(item))
        if value is not None:
            call_args[-1] = call_args[-1].with_changes(
                keyword=cst.Name("value"),
                equal=cst.AssignEqual(
                    cst.SimpleWhitespace(""), cst.SimpleWhitespace("")
                ),
            )
        source = lists[0]
        if len(lists) > 1:
            source = cst.Call(cst.Name("zip"), [cst.Arg(v) for v in lists])
            target: cst.BaseAssignTargetExpression = cst.Tuple(
                [cst.Element(cst.Name(t)) for t in targets], lpar=[], rpar=[]
            )
        else:
            target = cst.Name(element)
            if not isinstance(
                source,
                (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.List, cst.Tuple),
            ) and not (source.lpar and source.rpar):
                # `for t in a if c else b` needs the conditional in parentheses.
                source = source.with_changes(
                    lpar=[cst.LeftParen()], rpar=[cst.RightParen()]
                )
        call = cst.Call(ctx.name(mapping.mindspore), call_args)
        return call, target, source, element, hoisted

    def leave_Call(self, original: cst.Call, updated: cst.Call, ctx: ModuleContext):
        parts = self._translate(original, updated, ctx, inplace=False)
        if parts is None:
            return updated
        value, target, source, _, _ = parts
        ctx.applied.add(META.id)
        return cst.ListComp(value, cst.CompFor(target=target, iter=source))

    def leave_SimpleStatementLine(
        self,
        original: cst.SimpleStatementLine,
        updated: cst.SimpleStatementLine,
        ctx: ModuleContext,
    ):
        if not (
            len(updated.body) == 1
            and isinstance(updated.body[0], cst.Expr)
            and isinstance(updated.body[0].value, cst.Call)
            and len(original.body) == 1
            and isinstance(original.body[0], cst.Expr)
            and isinstance(original.body[0].value, cst.Call)
        ):
            return updated
        parts = self._translate(
            original.body[0].value, updated.body[0].value, ctx, inplace=True
        )
        if parts is None:
            return updated
        value, target, source, element, hoisted = parts
        # In place: each tensor of the list takes the new value (`ops.assign`, as for `x.mul_(y)`).
        assign = cst.Call(
            ctx.name("mindspore.ops.assign"),
            [cst.Arg(cst.Name(element)), cst.Arg(value)],
        )
        loop = cst.For(
            target=target,
            iter=source,
            body=cst.IndentedBlock(
                [
                    cst.SimpleStatementLine(
                        [cst.Expr(assign)],
                        trailing_whitespace=updated.trailing_whitespace,
                    )
                ]
            ),
            leading_lines=updated.leading_lines,
        )
        ctx.applied.add(META.id)
        if not hoisted:
            ctx.copy_position(loop, original)
            return loop
        first = cst.SimpleStatementLine(
            [
                cst.Assign([cst.AssignTarget(cst.Name(name))], value)
                for name, value in hoisted
            ],
            leading_lines=updated.leading_lines,
        )
        loop = loop.with_changes(leading_lines=())
        ctx.copy_position(first, original)
        ctx.copy_position(loop, original)
        return cst.FlattenSentinel([first, loop])
