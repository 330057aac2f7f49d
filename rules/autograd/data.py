"""TM106: writes to `.data` of a parameter become `Parameter.set_data`."""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.engine import visit_statements
from ...migrator.rule import GRADIENT, Example, Rule, RuleMeta, register

# Attribute names under which modules keep their parameters.
PARAMETER_ATTRS = frozenset({"weight", "bias"})


@register
class DataRule(Rule):
    meta = RuleMeta(
        id="TM106",
        title="`param.data = v` becomes `param.set_data(v)`",
        what="Rewrites an assignment to the `.data` of a module parameter (`layer.weight.data = v`, "
        "`self.fc.bias.data = v`) as `set_data(v)`. Reads of `.data`, and writes to `.data` of other "
        "tensors, stay: both `mindspore.Tensor` and `Parameter` have a `.data` attribute.",
        why="`.data` gives the values without the recorded graph. MindSpore records no graph; a "
        "`Parameter` replaces its value with `set_data` (seed: `net.fc.weight.set_data(ms.Tensor(...))`), "
        "and a plain `Tensor` has no `set_data`, so only parameters are rewritten.",
        use_instead="`net.fc.weight.set_data(mindspore.Tensor(w))`.",
        examples=(
            Example(
                before="import torch\n\ndef init(layer, w):\n    layer.weight.data = w\n    return layer.weight.data\n",
                after="\ndef init(layer, w):\n    layer.weight.set_data(w)\n    return layer.weight.data\n",
            ),
        ),
        family="autograd",
    )
    stage = GRADIENT
    order = 130  # after TM101, which keys statements by identity
    triggers = (".data",)
    # `.data` itself, not `.dataset` or `.data_ptr`.
    scope_words = (".data",)

    def leave_Module(self, original, updated: cst.Module, ctx: ModuleContext):
        # Writes to `.data` mention no torch name, so the engine does not enter their statements.
        if ".data =" not in ctx.source and ".data=" not in ctx.source:
            return updated
        rewriter = _SetData(ctx)
        # Top-level statements left as parsed whose text never writes `.data` are not entered.
        skip = ctx.untouched(map(id, updated.body), ctx.lines_with(".data"))
        module = visit_statements(updated, rewriter, skip)
        if rewriter.changed:
            ctx.applied.add("TM106")
        return module


class _SetData(cst.CSTTransformer):
    def __init__(self, ctx: ModuleContext) -> None:
        super().__init__()
        self.ctx = ctx
        self.changed = False

    def on_leave(self, original_node, updated_node):
        result = super().on_leave(original_node, updated_node)
        # Keep the statement index valid for the later stages and the findings' comments.
        if (
            isinstance(result, cst.CSTNode)
            and result is not original_node
            and id(original_node) in self.ctx.statements
        ):
            self.ctx.statements[id(result)] = self.ctx.statements[id(original_node)]
            self.ctx.keep.append(result)
        return result

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        return False  # the statement is rewritten as a whole

    def leave_SimpleStatementLine(self, original, updated: cst.SimpleStatementLine):
        if len(updated.body) != 1 or not isinstance(updated.body[0], cst.Assign):
            return updated
        small = updated.body[0]
        if len(small.targets) != 1:
            return updated
        target = small.targets[0].target
        if not (isinstance(target, cst.Attribute) and target.attr.value == "data"):
            return updated
        owner = target.value
        if not (
            isinstance(owner, cst.Attribute) and owner.attr.value in PARAMETER_ATTRS
        ):
            return updated
        self.changed = True
        call = cst.Call(
            cst.Attribute(owner, cst.Name("set_data")), [cst.Arg(small.value)]
        )
        return updated.with_changes(body=[cst.Expr(call)])
