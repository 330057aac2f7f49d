"""TM404: `nn.CrossEntropyLoss` that is only ever called becomes `ops.cross_entropy`.

MindSpore 2.10's `nn.CrossEntropyLoss` has no CPU kernel for torch's int64 class labels, so the
table (TM401) leaves the class on torch for the CPU target. `ops.cross_entropy` takes torch's
arguments with torch's defaults and accepts int64 labels.
"""

from __future__ import annotations

import ast

import libcst as cst

from ...migrator.aliases import walk_order
from ...migrator.context import PARSED, ModuleContext
from ...migrator.rule import API, Example, Rule, RuleMeta, register
from ..common.ast_nodes import nodes
from ..common.dataflow import code_of
from . import BY_TORCH_NAME

_CLASS = "torch.nn.CrossEntropyLoss"
_FUNCTION = "mindspore.ops.cross_entropy"
# torch's constructor parameters that `ops.cross_entropy` takes with the same meaning and default.
_KEYWORDS = ("weight", "ignore_index", "reduction", "label_smoothing")
# The parameters of torch's `forward`, so keyword calls keep working.
_INPUTS = ("input", "target")

META = RuleMeta(
    id="TM404",
    title="`nn.CrossEntropyLoss` that is only called becomes `ops.cross_entropy`",
    what="Where the MindSpore class `nn.CrossEntropyLoss` cannot run (MindSpore 2.10 on CPU), a loss "
    "object that the module only ever calls (`criterion = nn.CrossEntropyLoss(...)`, then "
    "`criterion(logits, labels)`) becomes `lambda input, target: ops.cross_entropy(input, target, ...)` "
    "with the same `weight`, `ignore_index`, `reduction` and `label_smoothing`; a loss built and called "
    "at once (`nn.CrossEntropyLoss()(logits, labels)`) becomes the function call. Arguments that are "
    "not constants are evaluated once, when the loss is built, as in torch.",
    why="On CPU, MindSpore 2.10's `nn.CrossEntropyLoss` rejects int64 labels ('the labels should be "
    "Int32'), the dtype torch requires for class indices. `ops.cross_entropy(input, target, weight=None, "
    "ignore_index=-100, reduction='mean', label_smoothing=0.0)` has torch's parameters and defaults, "
    "accepts int64 labels and class probabilities, and gives torch's values (checked for every "
    "reduction, class weights, `ignore_index` and label smoothing, on (N, C), (N, C, d) and (C,) inputs). "
    "Loss objects used otherwise (passed to `nn.WithLossCell`, given a device, kept in a container, or "
    "holding a `weight` buffer in a Module's state) are left to TM401.",
    use_instead="`loss = ops.cross_entropy(logits, labels, label_smoothing=0.1)`.",
    examples=(
        Example(
            before="import torch.nn as nn\n\ncriterion = nn.CrossEntropyLoss(label_smoothing=0.1)\n"
            "loss = criterion(model(x), y)\n",
            after="from mindspore import ops\n\n"
            "criterion = lambda input, target: ops.cross_entropy(input, target, label_smoothing=0.1)\n"
            "loss = criterion(model(x), y)\n",
        ),
        Example(
            before="import torch\nimport torch.nn as nn\n\ncriterion = nn.CrossEntropyLoss(weight=class_weights)\n"
            "loss = criterion(logits, labels) + nn.CrossEntropyLoss(reduction='sum')(logits, labels)\n",
            after="from mindspore import ops\n\n"
            "criterion = lambda input, target, weight=class_weights: ops.cross_entropy(input, target, weight=weight)\n"
            "loss = criterion(logits, labels) + ops.cross_entropy(logits, labels, reduction='sum')\n",
        ),
    ),
    severity="warning",
    family="api",
)


_EQUAL = cst.AssignEqual(
    whitespace_before=cst.SimpleWhitespace(""),
    whitespace_after=cst.SimpleWhitespace(""),
)


def _keyword(name: str, value: cst.BaseExpression) -> cst.Arg:
    return cst.Arg(value, keyword=cst.Name(name), equal=_EQUAL)


def _constant(expr: cst.BaseExpression) -> bool:
    try:
        ast.literal_eval(code_of(expr))
    except (ValueError, SyntaxError, TypeError):
        return False
    return True


def _call_facts(
    calls: list, names: list, attributes: list
) -> tuple[tuple[set[str], set[str]], tuple[set[str], set[str]]]:
    """From a module's ``ast`` Call, Name and Attribute nodes: the names and attribute names read
    somewhere other than as the callee of a call, and those called."""
    callees = {id(call.func) for call in calls}
    called: tuple[set[str], set[str]] = (set(), set())
    for call in calls:
        func = call.func
        if func.__class__ is ast.Name:
            called[0].add(func.id)
        elif func.__class__ is ast.Attribute:
            called[1].add(func.attr)
    read: tuple[set[str], set[str]] = (set(), set())
    for read_nodes, index, key in ((names, 0, "id"), (attributes, 1, "attr")):
        for node in read_nodes:
            if id(node) not in callees and node.ctx.__class__ is not ast.Store:
                read[index].add(getattr(node, key))
    return read, called


def _companion_class(func: cst.BaseExpression, ctx: ModuleContext) -> bool:
    """`ms_aux.CrossEntropyLoss`, as TM401 writes the class when it cannot run on the target."""
    return (
        isinstance(func, cst.Attribute)
        and func.attr.value == "CrossEntropyLoss"
        and isinstance(func.value, cst.Name)
        and func.value.value == ctx.companion_import.module
    )


@register
class CrossEntropyRule(Rule):
    meta = META
    stage = API
    order = 60
    triggers = ("CrossEntropyLoss",)
    # Reads the module's uses from the ast tree, calls in marked statements only.
    unmarked_words = ()

    def __init__(self) -> None:
        self.other_uses: tuple[set[str], set[str]] = (set(), set())
        self.calls: tuple[set[str], set[str]] = (set(), set())
        self.bound: dict[int, bool] = {}  # id(call) -> assigned to a `self.` attribute

    def visit_Module(self, node: cst.Module, ctx: ModuleContext) -> None:
        self.bound = {}
        if "CrossEntropyLoss" not in ctx.source:
            # Every name of the class (an import, an alias, `nn.CrossEntropyLoss`) spells it.
            self.other_uses = self.calls = (set(), set())
            return
        if node is ctx.state.get(PARSED):
            # The module as parsed: the source's tree, indexed once for every rule.
            found = [nodes(ctx, kind) for kind in (ast.Call, ast.Name, ast.Attribute)]
        else:
            # A rule of an earlier stage changed it (a training step may now pass the loss to
            # a Cell): it is read again.
            try:
                tree = ast.parse(node.code)
            except SyntaxError:
                self.other_uses = self.calls = (set(), set())
                return
            every = walk_order(tree)
            found = [
                [n for n in every if n.__class__ is kind]
                for kind in (ast.Call, ast.Name, ast.Attribute)
            ]
        self.other_uses, self.calls = _call_facts(*found)

    def _applies(self, ctx: ModuleContext) -> bool:
        mapping = BY_TORCH_NAME.get(_CLASS)
        return mapping is None or not mapping.valid_on(ctx.options.target)

    def visit_Assign(self, node: cst.Assign, ctx: ModuleContext) -> None:
        if len(node.targets) != 1 or not isinstance(node.value, cst.Call):
            return
        target = node.targets[0].target
        if isinstance(target, cst.Name):
            name, index = target.value, 0
        elif (
            isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value == "self"
        ):
            name, index = target.attr.value, 1
        else:
            return
        if name in self.other_uses[index] or name not in self.calls[index]:
            return
        self.bound[id(node.value)] = index == 1

    def _arguments(
        self, call: cst.Call, attribute: bool
    ) -> list[tuple[str, cst.BaseExpression]] | None:
        """torch's keyword arguments of the constructor, or None when one cannot be carried over."""
        out: list[tuple[str, cst.BaseExpression]] = []
        for position, arg in enumerate(call.args):
            if arg.star:
                return None
            if arg.keyword is None:
                if position != 0:
                    return None
                name = "weight"
            else:
                name = arg.keyword.value
            if name not in _KEYWORDS:
                return None
            out.append((name, arg.value))
        if attribute and any(
            name == "weight" and not (isinstance(v, cst.Name) and v.value == "None")
            for name, v in out
        ):
            return None  # torch keeps the weight as a buffer in the Module's state_dict
        return out

    def leave_Call(self, original: cst.Call, updated: cst.Call, ctx: ModuleContext):
        if isinstance(original.func, cst.Call):
            # `nn.CrossEntropyLoss(...)(logits, labels)`
            if ctx.qualname(original.func.func) != _CLASS or not self._applies(ctx):
                return updated
            inner = updated.func
            if not isinstance(inner, cst.Call) or not (
                ctx.qualname(inner.func) == _CLASS or _companion_class(inner.func, ctx)
            ):
                return updated
            arguments = self._arguments(inner, False)
            if arguments is None or len(updated.args) != 2:
                return updated
            if any(a.star for a in updated.args):
                return updated
            inputs = [
                a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in updated.args
            ]
            keywords = [_keyword(name, value) for name, value in arguments]
            ctx.applied.add(META.id)
            return cst.Call(ctx.name(_FUNCTION), [*inputs, *keywords])
        attribute = self.bound.get(id(original))
        if (
            attribute is None
            or ctx.qualname(original.func) != _CLASS
            or not self._applies(ctx)
        ):
            return updated
        arguments = self._arguments(updated, attribute)
        if arguments is None:
            return updated
        return self._lambda(arguments, ctx)

    def _lambda(self, arguments, ctx: ModuleContext) -> cst.Lambda:
        params = [cst.Param(cst.Name(n)) for n in _INPUTS]
        keywords = []
        for name, value in arguments:
            if _constant(value):
                keywords.append(_keyword(name, value))
            else:
                # Evaluated once, when the loss is built, as torch's constructor does.
                params.append(cst.Param(cst.Name(name), default=value, equal=_EQUAL))
                keywords.append(_keyword(name, cst.Name(name)))
        body = cst.Call(
            ctx.name(_FUNCTION), [*(cst.Arg(cst.Name(n)) for n in _INPUTS), *keywords]
        )
        ctx.applied.add(META.id)
        return cst.Lambda(cst.Parameters(params=params), body)
