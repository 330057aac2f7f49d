"""TM209: reads of an optimizer's learning rate (`optimizer.param_groups[i]["lr"]`) become floats."""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.engine import visit_statements
from ...migrator.rule import API, Example, Rule, RuleMeta, register

META = RuleMeta(
    id="TM209",
    title='`optimizer.param_groups[i]["lr"]` is read and written as a float',
    what='Wraps each read of `optimizer.param_groups[i]["lr"]` (or of `group["lr"]` in `for group in '
    "optimizer.param_groups`) of a `torch.optim` optimizer in `float(...)`, and makes the values "
    'written there Python floats: `group["lr"] *= 0.5` becomes `group["lr"] = float(group["lr"]) * 0.5`.',
    why="In `mindspore.experimental.optim` the learning rate of a parameter group is a scalar "
    "Parameter (the schedulers update it in place), where torch keeps a Python float: printed, it "
    "shows `Parameter (name=learning_rate_group_0, ...)` without its value, and formatting it with "
    "`:.4f` fails. `float(...)` gives the value (rounded to float32, as MindSpore stores it). Each "
    "optimizer of MindSpore 2.10 uses a Python float written into the group, but ignores any other "
    "value: `group['lr'] *= 0.5` puts a Tensor there and the step keeps the old rate.",
    use_instead='`float(optimizer.param_groups[0]["lr"])`, or `scheduler.get_last_lr()`.',
    examples=(
        Example(
            before="import torch\n\noptimizer = torch.optim.SGD(params, lr=0.1)\n"
            "print('lr', optimizer.param_groups[0]['lr'])\n"
            "for group in optimizer.param_groups:\n    group['lr'] *= 0.5\n",
            after="from mindspore.experimental import optim\n\noptimizer = optim.SGD(params, lr=0.1)\n"
            "print('lr', float(optimizer.param_groups[0]['lr']))\n"
            "for group in optimizer.param_groups:\n    group['lr'] = float(group['lr']) * 0.5\n",
        ),
    ),
    severity="warning",
    family="training",
)


def _lr_item(
    node: cst.BaseExpression,
    ctx: ModuleContext,
    optimizers: set[str],
    groups: list[str],
    built_here: bool = False,
) -> bool:
    """`<optimizer>.param_groups[<i>]["lr"]`, or `group["lr"]` in `for group in <optimizer>.param_groups`."""
    if (
        not isinstance(node, cst.Subscript)
        or len(node.slice) != 1
        or not isinstance(node.slice[0].slice, cst.Index)
    ):
        return False
    key = node.slice[0].slice.value
    if not isinstance(key, cst.SimpleString) or key.evaluated_value != "lr":
        return False
    group = node.value
    if isinstance(group, cst.Name):
        return group.value in groups
    if (
        not isinstance(group, cst.Subscript)
        or len(group.slice) != 1
        or not isinstance(group.slice[0].slice, cst.Index)
    ):
        return False
    if built_here and ctx.dotted(group.value.value) not in optimizers:
        return False
    return _param_groups(group.value, ctx, optimizers)


def _param_groups(
    node: cst.BaseExpression, ctx: ModuleContext, optimizers: set[str]
) -> bool:
    """``X.param_groups``: an optimizer's groups, whether the file builds ``X`` (``optimizers``) or
    receives it (``create_optimizer_v2(...)``, a parameter): ``float`` of the learning rate read
    there is its number either way, a Python float staying what it is. An optimizer's own
    ``self.param_groups`` (a class deriving from the companion's Optimizer) holds floats already."""
    return (
        isinstance(node, cst.Attribute)
        and node.attr.value == "param_groups"
        and ctx.dotted(node.value) != "self"
    )


def _is_float(value: cst.BaseExpression) -> bool:
    """An expression that is a Python float whatever its names hold: `0.5`, `float(x) * 0.1`."""
    if isinstance(value, cst.Float):
        return True
    if isinstance(value, cst.Call):
        return isinstance(value.func, cst.Name) and value.func.value == "float"
    if isinstance(value, cst.BinaryOperation) and isinstance(
        value.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.Power)
    ):
        sides = (value.left, value.right)
        return any(_is_float(v) for v in sides) and all(
            _is_float(v) or isinstance(v, cst.Integer) for v in sides
        )
    return False


def _float(value: cst.BaseExpression) -> cst.Call:
    return cst.Call(cst.Name("float"), [cst.Arg(value)])


class _Wrap(cst.CSTTransformer):
    def __init__(self, ctx: ModuleContext, optimizers: set[str]) -> None:
        super().__init__()
        self.ctx = ctx
        self.optimizers = optimizers
        self.stores: set[int] = set()
        self.wrapped: set[int] = set()
        # Loop variables over an optimizer's param_groups, innermost last.
        self.groups: list[str] = []
        self.loops: list[int] = []
        self.comprehensions: list[int] = []
        # loop names over the groups of an optimizer the file builds (None for another's)
        self.own_groups: list[str | None] = []
        self.changed = False
        # Statements left as the parse made them whose text never names param_groups: outside a
        # loop over an optimizer's groups they hold no learning rate read, and are not entered.
        self.skip: frozenset[int] = frozenset()

    def on_visit(self, node: cst.CSTNode) -> bool:
        if id(node) in self.skip and not self.groups:
            return False
        return super().on_visit(node)

    def _lr(self, node: cst.BaseExpression) -> bool:
        return _lr_item(node, self.ctx, self.optimizers, self.groups)

    def _lr_written(self, node: cst.BaseExpression) -> bool:
        """A write is rewritten only on an optimizer the file builds from `torch.optim` (its
        groups hold MindSpore's lr Parameter); another object's groups keep what is written."""
        if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name):
            return node.value.value in self.own_groups and self._lr(node)
        return _lr_item(node, self.ctx, self.optimizers, self.groups, built_here=True)

    def _store(self, *targets) -> None:
        for target in targets:
            self.stores.add(id(target))

    def visit_Assign(self, node: cst.Assign) -> None:
        self._store(*(t.target for t in node.targets))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._store(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._store(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._store(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._store(node.target)
        if isinstance(node.target, cst.Name) and _param_groups(
            node.iter, self.ctx, self.optimizers
        ):
            self.groups.append(node.target.value)
            self.loops.append(id(node))
            own = self.ctx.dotted(node.iter.value) in self.optimizers
            self.own_groups.append(node.target.value if own else None)

    def _comprehension(self, node) -> None:
        # `[group["lr"] for group in optimizer.param_groups]`: the element is read in the loop
        names = []
        clause = node.for_in
        while clause is not None:
            if isinstance(clause.target, cst.Name) and _param_groups(
                clause.iter, self.ctx, self.optimizers
            ):
                names.append(clause.target.value)
            clause = clause.inner_for_in
        self.groups.extend(names)
        self.comprehensions.append(len(names))

    def _comprehension_done(self, original, updated):
        count = self.comprehensions.pop()
        if count:
            del self.groups[-count:]
        return updated

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = (
        _comprehension
    )
    leave_ListComp = leave_SetComp = leave_GeneratorExp = leave_DictComp = (
        _comprehension_done
    )

    def leave_For(self, original: cst.For, updated: cst.For):
        if self.loops and self.loops[-1] == id(original):
            self.loops.pop()
            self.groups.pop()
            self.own_groups.pop()
        return updated

    def leave_AugAssign(self, original: cst.AugAssign, updated: cst.AugAssign):
        # MindSpore's optimizers ignore a Tensor put in the group (`lr *= 0.5` on the lr Parameter
        # gives one) and use a Python float: the new value is computed as a float.
        if not self._lr_written(original.target):
            return updated
        operator = getattr(
            cst, type(updated.operator).__name__.replace("Assign", ""), None
        )
        if operator is None:
            return updated
        self.changed = True
        value = cst.BinaryOperation(
            _float(updated.target.deep_clone()), operator(), updated.value
        )
        return cst.Assign([cst.AssignTarget(updated.target)], value)

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign):
        if len(original.targets) != 1 or not self._lr_written(
            original.targets[0].target
        ):
            return updated
        value = updated.value
        if _is_float(value):
            return updated
        self.changed = True
        return updated.with_changes(value=_float(value))

    def visit_Call(self, node: cst.Call) -> None:
        if (
            isinstance(node.func, cst.Name)
            and node.func.value == "float"
            and len(node.args) == 1
        ):
            self.wrapped.add(id(node.args[0].value))

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript):
        if id(original) in self.stores or id(original) in self.wrapped:
            return updated
        if not self._lr(original):
            return updated
        self.changed = True
        return _float(updated)

    def on_leave(self, original_node, updated_node):
        # LibCST rebuilds every node it walks: the statements keep their positions for later stages.
        result = super().on_leave(original_node, updated_node)
        info = self.ctx.statements.get(id(original_node))
        if info is not None and isinstance(result, cst.CSTNode):
            self.ctx.statements[id(result)] = info
            self.ctx.keep.append(result)
        return result


@register
class LearningRateReadRule(Rule):
    meta = META
    stage = API
    order = 90
    triggers = ("param_groups",)

    def __init__(self) -> None:
        self.optimizers: set[str] = set()

    def visit_Module(self, node: cst.Module, ctx: ModuleContext) -> None:
        self.optimizers = set()

    def visit_Assign(self, node: cst.Assign, ctx: ModuleContext) -> None:
        if not isinstance(node.value, cst.Call):
            return
        qualified = ctx.qualname(node.value.func) or ""
        leaf = qualified.rsplit(".", 1)[-1]
        if (
            not qualified.startswith("torch.optim.")
            or qualified.startswith("torch.optim.lr_scheduler.")
            or not leaf[:1].isupper()
        ):
            return
        for target in node.targets:
            name = ctx.dotted(target.target)
            if name is not None:
                self.optimizers.add(name)

    def leave_Module(
        self, original: cst.Module, updated: cst.Module, ctx: ModuleContext
    ):
        if "param_groups" not in ctx.source:
            return updated  # no rule writes it: a module whose source never names it has none
        wrap = _Wrap(ctx, self.optimizers)
        # Statements the rules left alone whose text never names param_groups hold no learning
        # rate read: the top-level ones are not entered, nor the nested ones outside a loop
        # over an optimizer's groups.
        wrap.skip = ctx.untouched(ctx.parsed, ctx.lines_with("param_groups"))
        top = frozenset(id(statement) for statement in updated.body) & wrap.skip
        result = visit_statements(updated, wrap, top)
        if not wrap.changed:
            return updated
        ctx.applied.add(META.id)
        return result
