"""TM103: `no_grad`, `enable_grad`, `inference_mode` and `set_grad_enabled` blocks and decorators."""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.findings import WARNING
from ...migrator.rule import GRADIENT, Example, Rule, RuleMeta, register
from ..common.unwrap import first_position
from ..companion import MODULE as COMPANION
from . import findings as tm9
from .names import is_simple_assignment
from .state import may_name, no_grad_statements

# Context managers and decorators that switch recording off (True) or on (False).
MODES = {
    "torch.no_grad": True,
    "torch.autograd.no_grad": True,
    "torch.autograd.grad_mode.no_grad": True,
    "torch.inference_mode": True,
    "torch.autograd.inference_mode": True,
    "torch.autograd.grad_mode.inference_mode": True,
    "torch.enable_grad": False,
    "torch.autograd.enable_grad": False,
    "torch.autograd.grad_mode.enable_grad": False,
    "torch.set_grad_enabled": None,
    "torch.autograd.set_grad_enabled": None,
    "torch.autograd.grad_mode.set_grad_enabled": None,
}
# The last parts of those names: a module that spells none of them holds no grad mode.
MODE_WORDS = frozenset(name.rpartition(".")[2] for name in MODES)


def _may_switch(ctx: ModuleContext) -> bool:
    return any(may_name(ctx, word) for word in MODE_WORDS)


def _mode(
    node: cst.BaseExpression, ctx: ModuleContext
) -> tuple[bool | None, bool] | None:
    """(stops gradients: True/False/None for unknown, certain) for a grad-mode call, else None."""
    func = node.func if isinstance(node, cst.Call) else node
    qualified = ctx.qualname(func)
    if qualified not in MODES:
        return None
    stops = MODES[qualified]
    args = node.args if isinstance(node, cst.Call) else ()
    if stops is None:
        if len(args) != 1:
            return None
        value = args[0].value
        if isinstance(value, cst.Name) and value.value in ("True", "False"):
            return value.value == "False", True
        return None, False
    if "inference_mode" in qualified and args:
        value = args[0].value
        if isinstance(value, cst.Name) and value.value in ("True", "False"):
            return value.value == "True", True
        return None, False
    if args and isinstance(node, cst.Call):
        return None
    return stops, True


class _Wrap(cst.CSTTransformer):
    def __init__(self, ctx: ModuleContext) -> None:
        super().__init__()
        self.ctx = ctx

    def leave_Assign(self, original, updated: cst.Assign):
        return updated.with_changes(
            value=cst.Call(
                self.ctx.name("mindspore.ops.stop_gradient"), [cst.Arg(updated.value)]
            )
        )

    def leave_AnnAssign(self, original, updated: cst.AnnAssign):
        if updated.value is None:
            return updated
        return updated.with_changes(
            value=cst.Call(
                self.ctx.name("mindspore.ops.stop_gradient"), [cst.Arg(updated.value)]
            )
        )


@register
class GradModeRule(Rule):
    meta = RuleMeta(
        id="TM103",
        title="Grad-mode blocks and decorators are unwrapped",
        what="Unwraps `with torch.no_grad():`, `torch.inference_mode()`, `torch.enable_grad()` and "
        "`torch.set_grad_enabled(b)` blocks (the body is dedented, comments kept) and removes the same "
        "APIs used as decorators; `is_grad_enabled()` in such a block is answered by its mode. "
        "Inside a function, assignments made under `no_grad` get "
        "`ops.stop_gradient`, so they stay constant if the function is differentiated; a value under "
        "`no_grad` that TM101 moves into a differentiated function gets it too. A bare "
        "`torch.set_grad_enabled(False)` statement is reported (TM916).",
        why="The seed (torch.no_grad / torch.enable_grad): MindSpore builds the backward graph only "
        "when `grad` is called and records nothing during the forward pass, so every forward "
        "computation already runs as under `torch.no_grad`, and every gradient computation as under "
        "`torch.enable_grad`. Inside a differentiated function the only way to cut a value out of "
        "the gradient is `ops.stop_gradient`.",
        use_instead="Plain code; `ops.stop_gradient(v)` for values that must not be differentiated.",
        examples=(
            Example(
                before="import torch\n\n"
                "def evaluate(model, x):\n"
                "    # no tape during evaluation\n"
                "    with torch.no_grad():\n"
                "        out = model(x)\n"
                "    return out\n",
                after="from mindspore import ops\n\n"
                "def evaluate(model, x):\n"
                "    # no tape during evaluation\n"
                "    out = ops.stop_gradient(model(x))\n"
                "    return out\n",
            ),
            Example(
                before="import torch\n\n@torch.no_grad()\ndef predict(model, x):\n    return model(x)\n",
                after="\ndef predict(model, x):\n    return model(x)\n",
            ),
            Example(
                before="import torch\ntorch.set_grad_enabled(False)\n",
                after="import ms_aux\n# torch2ms: TM916 `torch.set_grad_enabled(False)` switches recording off for an extent that cannot be proven\nms_aux.set_grad_enabled(False)\n",
                findings=("TM916",),
            ),
        ),
        family="autograd",
    )
    stage = GRADIENT
    order = 110
    triggers = ("grad", "inference_mode")
    # The grad modes it follows through a function (not `grad_checkpointing`).
    scope_words = tuple(sorted(MODE_WORDS))

    def leave_IndentedBlock(
        self, original, updated: cst.IndentedBlock, ctx: ModuleContext
    ):
        if not _may_switch(ctx):
            return updated
        # Only a `with` block is unwrapped with regard to its scope.
        in_function = any(type(s) is cst.With for s in updated.body) and any(
            isinstance(s, cst.FunctionDef) for s in ctx.stack
        )
        body = self._unwrap(list(updated.body), ctx, in_function)
        return updated if body is None else updated.with_changes(body=body)

    def leave_Module(self, original, updated: cst.Module, ctx: ModuleContext):
        if not _may_switch(ctx):
            return updated
        body = self._unwrap(list(updated.body), ctx, False)
        return updated if body is None else updated.with_changes(body=body)

    def _unwrap(self, body: list, ctx: ModuleContext, in_function: bool):
        out: list = []
        changed = False
        for statement in body:
            if isinstance(statement, cst.With) and not statement.asynchronous:
                modes = [(item, _mode(item.item, ctx)) for item in statement.items]
                grad_items = [
                    (item, m)
                    for item, m in modes
                    if m is not None and item.asname is None
                ]
                if grad_items:
                    changed = True
                    ctx.applied.add("TM103")
                    rest = [
                        item
                        for item, m in modes
                        if not any(item is g for g, _ in grad_items)
                    ]
                    stops = any(m[0] for _, m in grad_items)
                    unknown = any(m[0] is None for _, m in grad_items)
                    if rest:
                        rest[-1] = rest[-1].with_changes(
                            comma=cst.MaybeSentinel.DEFAULT
                        )
                        inner = [statement.with_changes(items=rest)]
                    else:
                        inner = (
                            list(statement.body.body)
                            if isinstance(statement.body, cst.IndentedBlock)
                            else [cst.SimpleStatementLine(list(statement.body.body))]
                        )
                        if inner:
                            first = inner[0]
                            inner[0] = first.with_changes(
                                leading_lines=[
                                    *statement.leading_lines,
                                    *first.leading_lines,
                                ]
                            )
                            first_position(ctx, inner[0], first, statement)
                    inner = _answer_grad_mode(
                        inner, None if unknown else not stops, ctx, statement
                    )
                    if unknown and in_function:
                        ctx.report(
                            "TM103",
                            "`set_grad_enabled(<expression>)` unwrapped: values in it are not cut from differentiation when it is False",
                            "Wrap the values in `ops.stop_gradient(...)` where gradients must not flow.",
                            node=statement,
                            severity=WARNING,
                        )
                    if stops and not rest:
                        differentiated = in_function or _backward_in_scope(
                            ctx, statement
                        )
                        if differentiated and all(
                            is_simple_assignment(s) for s in inner
                        ):
                            inner = [self._stop(s, ctx, statement) for s in inner]
                        else:
                            no_grad_statements(ctx).update(id(s) for s in inner)
                    for s in inner:
                        if ctx.statements.get(id(s)) is None:
                            ctx.copy_position(s, statement)
                    out.extend(inner)
                    continue
            if (
                isinstance(statement, cst.SimpleStatementLine)
                and len(statement.body) == 1
            ):
                small = statement.body[0]
                if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
                    mode = _mode(small.value, ctx)
                    if (
                        mode is not None
                        and ctx.qualname(small.value.func).endswith("set_grad_enabled")
                        and mode[0] is not False
                    ):  # type: ignore[union-attr]
                        ctx.report(
                            "TM916",
                            "`torch.set_grad_enabled(False)` switches recording off for an extent that cannot be proven",
                            tm9.GRAD_ENABLED_STATEMENT.use_instead,
                            node=statement,
                        )
            out.append(statement)
        return out if changed else None

    def _stop(self, statement, ctx: ModuleContext, where) -> cst.CSTNode:
        new = statement.visit(_Wrap(ctx))
        ctx.copy_position(
            new, statement if ctx.statements.get(id(statement)) else where
        )
        return new

    def leave_FunctionDef(self, original, updated: cst.FunctionDef, ctx: ModuleContext):
        if not _may_switch(ctx):
            return updated
        kept = []
        for decorator in updated.decorators:
            mode = _mode(decorator.decorator, ctx)
            if mode is None and isinstance(
                decorator.decorator, (cst.Name, cst.Attribute)
            ):
                qualified = ctx.qualname(decorator.decorator)
                mode = (
                    (True, True)
                    if qualified in MODES and MODES[qualified] is not None
                    else None
                )
            if mode is not None:
                ctx.applied.add("TM103")
                continue
            kept.append(decorator)
        if len(kept) == len(updated.decorators):
            return updated
        if not kept and updated.decorators:
            first = updated.decorators[0]
            return updated.with_changes(
                decorators=[],
                leading_lines=[*updated.leading_lines, *first.leading_lines],
            )
        return updated.with_changes(decorators=kept)


_IS_GRAD_ENABLED = frozenset(
    f"{prefix}.is_grad_enabled"
    for prefix in ("torch", "torch.autograd", "torch.autograd.grad_mode")
)


class _ModeAnswer(cst.CSTTransformer):
    """`is_grad_enabled()` calls of an unwrapped grad-mode block, outside nested functions."""

    def __init__(self, ctx: ModuleContext, enabled: bool | None) -> None:
        super().__init__()
        self.ctx, self.enabled, self.found = ctx, enabled, []

    def visit_FunctionDef(self, node) -> bool:
        return False

    def visit_Lambda(self, node) -> bool:
        return False

    def leave_Call(self, original, updated: cst.Call):
        func = updated.func
        companion = (
            isinstance(func, cst.Attribute)
            and func.attr.value == "is_grad_enabled"
            and isinstance(func.value, cst.Name)
            and func.value.value == COMPANION
        )
        if updated.args or not (
            companion or self.ctx.qualname(original.func) in _IS_GRAD_ENABLED
        ):
            return updated
        self.found.append(original)
        if self.enabled is None:
            return updated
        return cst.Name("True" if self.enabled else "False")


def _answer_grad_mode(
    inner: list, enabled: bool | None, ctx: ModuleContext, where: cst.CSTNode
) -> list:
    """The block's statements with `is_grad_enabled()` answered by the block's mode, which the
    unwrapping takes away; a mode known only at run time is reported at the statement instead."""
    out = []
    for statement in inner:
        answer = _ModeAnswer(ctx, enabled)
        new = statement.visit(answer)
        if not answer.found:
            # Nothing answered: the statement and the ones it holds keep their identity, and with
            # it their positions for the findings of later stages.
            new = statement
        elif enabled is not None:
            _copy_nested_positions(statement, new, ctx)
        if answer.found and enabled is None:
            ctx.report(
                "TM103",
                "`is_grad_enabled()` inside an unwrapped `set_grad_enabled(<expression>)` "
                "block answers the mode outside the block",
                "Pass the block's mode to the code that asks for it.",
                node=statement if ctx.statements.get(id(statement)) else where,
                severity=WARNING,
            )
        elif new is not statement:
            ctx.copy_position(
                new, statement if ctx.statements.get(id(statement)) else where
            )
        out.append(new)
    return out


def _copy_nested_positions(
    old: cst.CSTNode, new: cst.CSTNode, ctx: ModuleContext
) -> None:
    """Positions of the statements ``old`` holds, given to their rebuilt copies in ``new``
    (answering `is_grad_enabled()` replaces expressions only, so both hold the same statements
    in the same order)."""
    before, after = _statements_in(old), _statements_in(new)
    if len(before) != len(after):
        return
    for a, b in zip(before, after):
        if a is not b and ctx.statements.get(id(a)) and not ctx.statements.get(id(b)):
            ctx.copy_position(b, a)


def _statements_in(node: cst.CSTNode) -> list[cst.CSTNode]:
    found: list[cst.CSTNode] = []

    class _Collect(cst.CSTVisitor):
        def on_visit(self, child: cst.CSTNode) -> bool:
            if isinstance(child, (cst.BaseSmallStatement, cst.BaseExpression)):
                return False
            if isinstance(child, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                found.append(child)
            return True

    node.visit(_Collect())
    return found


_SCOPES = (cst.For, cst.While, cst.FunctionDef)


def _backward_in_scope(ctx: ModuleContext, block: cst.CSTNode) -> bool:
    """Whether the loop or function around the block (else the module) calls ``backward``: a
    training rule may then move the block's assignments into the differentiated ``forward_fn``,
    where they must stay constants. ``stop_gradient`` outside differentiation changes nothing."""
    for statement in reversed(ctx.stack):
        if isinstance(statement, _SCOPES):
            return "backward(" in cst.Module([]).code_for_node(statement)
    # At module level only a backward after the block can differentiate it.
    line = ctx.position(block)[0]
    return "backward(" in "\n".join(ctx.source.splitlines()[line:])
