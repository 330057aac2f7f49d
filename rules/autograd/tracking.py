"""Gradient state along a statement list: leaves, `.grad` reads, tape flags."""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext
from . import findings as tm9
from .model import (
    Block,
)
from .names import PURE_BUILTINS, binds, is_simple_assignment, reads
from .names import attribute_reads as _attributes
from .nodes import (
    _call,
    _ReplaceGrad,
)
from .state import may_name, no_grad_statements


class GradStateTracking:
    """Methods of GradientSitesRule (a mixin)."""

    @staticmethod
    def _invalidate(block: Block, bound: set[str]) -> None:
        for output in list(block.extracted):
            if bound & block.extracted[output].depends:
                del block.extracted[output]

    def _requires_flag(
        self, statement, block: Block, ctx: ModuleContext
    ) -> bool | None:
        small = statement.body[0]
        value = small.value
        if id(statement) in no_grad_statements(ctx):
            return False
        if (
            isinstance(value, cst.Call)
            and ctx.dotted(value.func) == "mindspore.ops.stop_gradient"
        ):
            return False
        names = reads(value)
        if isinstance(small, cst.AugAssign):
            names |= reads(small.target)
        if any(block.requires.get(n) for n in names):
            return True
        unknown = [
            n
            for n in names
            if n not in block.requires
            and n not in ctx.aliases
            and n not in PURE_BUILTINS
            and n not in ("None", "True", "False")
        ]
        return None if unknown else False

    def _track(self, statement, block: Block, ctx: ModuleContext) -> None:
        bound = binds(statement)
        if is_simple_assignment(statement) and id(statement) not in self.pure:
            flag = self._requires_flag(statement, block, ctx)
            for name in bound:
                if flag is None:
                    block.requires.pop(name, None)
                else:
                    block.requires[name] = flag
        else:
            for name in bound:
                block.requires.pop(name, None)
        in_place = isinstance(statement, cst.SimpleStatementLine) and all(
            isinstance(x, cst.AugAssign) for x in statement.body
        )
        for name in () if in_place else bound:
            if name in block.leaves:
                block.leaves.pop(name)
                if is_simple_assignment(statement):
                    block.nonleaf.add(name)
            elif name in block.nonleaf and not is_simple_assignment(statement):
                block.nonleaf.discard(name)
        self._invalidate(block, bound)
        # A gradient site left inside a nested block makes the leaves' state unknown.
        if not isinstance(statement, cst.SimpleStatementLine) and self._has_site(
            statement, ctx
        ):
            block.poisoned = True
            for leaf in block.leaves.values():
                leaf.state = "unknown"

    def _has_site(self, node, ctx: ModuleContext) -> bool:
        if not self._may_hold_site(ctx):
            return False
        for call in self.calls_of(node):
            if (
                isinstance(call.func, cst.Attribute)
                and call.func.attr.value == "backward"
            ):
                return True
            if ctx.qualname(call.func) in (
                "torch.autograd.backward",
                "torch.autograd.grad",
            ):
                return True
        return False

    def _grad_reads(self, statement, block: Block, ctx: ModuleContext):
        """Rewrite ``x.grad`` of tracked tensors; handle ``x.grad = None`` and ``x.grad.zero_()``."""
        if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
            small = statement.body[0]
            # x.grad = None
            if isinstance(small, cst.Assign) and len(small.targets) == 1:
                target = small.targets[0].target
                if (
                    isinstance(target, cst.Attribute)
                    and target.attr.value == "grad"
                    and isinstance(target.value, cst.Name)
                    and target.value.value in block.leaves
                    and isinstance(small.value, cst.Name)
                    and small.value.value == "None"
                    and block.leaves[target.value.value].state != "unknown"
                ):
                    block.leaves[target.value.value].state = "none"
                    return None, True
                # x.grad.requires_grad = False: the gradient is a value that records nothing
                if (
                    isinstance(target, cst.Attribute)
                    and target.attr.value == "requires_grad"
                    and isinstance(target.value, cst.Attribute)
                    and target.value.attr.value == "grad"
                    and isinstance(target.value.value, cst.Name)
                    and target.value.value.value in block.leaves
                    and isinstance(small.value, cst.Name)
                    and small.value.value == "False"
                ):
                    return None, True
            # x.grad.zero_() / x.grad.data.zero_()
            if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
                func = small.value.func
                if (
                    isinstance(func, cst.Attribute)
                    and func.attr.value == "zero_"
                    and not small.value.args
                ):
                    base = func.value
                    if isinstance(base, cst.Attribute) and base.attr.value == "data":
                        base = base.value
                    if (
                        isinstance(base, cst.Attribute)
                        and base.attr.value == "grad"
                        and isinstance(base.value, cst.Name)
                    ):
                        leaf = block.leaves.get(base.value.value)
                        if leaf is not None and leaf.state != "unknown":
                            leaf.state = "zero" if leaf.state != "none" else "none"
                            return None, True
        table: dict[tuple[str, str], cst.BaseExpression] = {}
        for name, leaf in block.leaves.items():
            if leaf.state == "none":
                table["grad", name] = cst.Name("None")
            elif leaf.state == "var":
                table["grad", name] = cst.Name(leaf.var)
            elif leaf.state == "zero":
                table["grad", name] = _call(
                    ctx, "mindspore.ops.zeros_like", [cst.Name(name)]
                )
        for name in block.nonleaf:
            table.setdefault(("grad", name), cst.Name("None"))
        retained = self._retained(statement, ctx)
        for name, flag in block.requires.items():
            leaf = name in block.leaves
            table["requires_grad", name] = cst.Name(str(flag))
            table["is_leaf", name] = cst.Name(str(leaf or not flag))
            if not leaf:
                table.setdefault(("grad", name), cst.Name("None"))
            if not flag:
                table["grad_fn", name] = cst.Name("None")
        if block.poisoned or (
            not isinstance(statement, cst.SimpleStatementLine)
            and self._has_site(statement, ctx)
        ):
            table = {key: value for key, value in table.items() if key[0] != "grad"}
        block.retained |= retained
        table = {
            key: value
            for key, value in table.items()
            if not (key[0] == "grad" and key[1] in block.retained)
        }
        new, changed = statement, False
        if table and self._may_replace(statement, table):
            replacer = _ReplaceGrad(table)
            new = statement.visit(replacer)
            if replacer.changed:
                ctx.copy_position(new, statement)
                changed = True
            else:
                new = statement
        if not self.reads_only:
            self._report_flags(new, ctx, statement)
        return new, changed

    def _may_replace(self, statement, table: dict) -> bool:
        """Whether ``_ReplaceGrad(table)`` can change ``statement``: it replaces attributes named
        in ``table`` (and ``.requires_grad`` of `.data`, `.detach()`, views), and enters no
        function or class."""
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            return False
        wanted = {key[0] for key in table}
        wanted.add("requires_grad")
        return not wanted.isdisjoint(self.attributes_of(statement))

    def _retained(self, statement, ctx: ModuleContext) -> set[str]:
        names: set[str] = set()
        if not may_name(ctx, "retain_grad"):
            return names
        for call in self.calls_of(statement):
            func = call.func
            if (
                isinstance(func, cst.Attribute)
                and func.attr.value == "retain_grad"
                and isinstance(func.value, cst.Name)
            ):
                names.add(func.value.value)
        return names

    def _report_flags(self, statement, ctx: ModuleContext, where) -> None:
        """TM912 for tape attributes left in the code: always `grad_fn`/`is_leaf`, and
        `requires_grad` where it decides control flow."""

        class _Flags(cst.CSTVisitor):
            def __init__(self) -> None:
                self.found: list[str] = []

            def visit_Attribute(self, node: cst.Attribute) -> None:
                if node.attr.value in ("grad_fn", "is_leaf"):
                    self.found.append(node.attr.value)

        tests: list[cst.CSTNode] = []
        if isinstance(statement, (cst.If, cst.While)):
            tests.append(statement.test)
        elif isinstance(statement, cst.SimpleStatementLine):
            tests.extend(
                small.test for small in statement.body if isinstance(small, cst.Assert)
            )
        flags = _Flags()
        header = statement if isinstance(statement, cst.SimpleStatementLine) else None
        if header is not None:
            header.visit(flags)
        for test in tests:
            flags.found.extend(
                "requires_grad" for _ in _attributes(test, "requires_grad")
            )
            test.visit(flags)
        if flags.found:
            ctx.report(
                "TM912",
                f"`.{flags.found[0]}` has no MindSpore form: tensors carry no tape",
                tm9.GRAD_FLAGS.use_instead,
                node=where,
            )
