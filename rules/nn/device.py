"""TM307: `.to(device)`, `.cuda()`, `.cpu()` and `torch.device` definitions are removed."""

from __future__ import annotations

import ast
import re

import libcst as cst

from ...migrator.context import COMPANION, ModuleContext
from ...migrator.engine import companion_reads, visit, visit_statements
from ...migrator.findings import NOTE
from ...migrator.rule import API, Example, Rule, RuleMeta, define, register
from ..common.ast_nodes import nodes
from .common import string_value, tidy_args
from .facts import facts

_DEVICE_STRING = re.compile(r"^(cpu|cuda|mps|xpu|npu)(:\d+)?$")
# Keywords of `.to()`/`.cuda()` that only place or lay out memory.
_PLACEMENT = frozenset({"device", "non_blocking", "copy", "memory_format"})

PLACEMENT = define(
    "TM934",
    "Device placement left to MindSpore's context",
    "Notes that a GPU placement (`.cuda()`, `.to('cuda:1')`) was removed: MindSpore runs every "
    "operation of a process on the device its context names.",
    "MindSpore has no per-tensor devices; a program that moved tensors between devices (model "
    "parallelism, CPU-side post-processing) now runs everything on one device.",
    "Pick the device once at start-up: `mindspore.set_device('GPU', 0)` (or 'CPU', 'Ascend').",
    severity=NOTE,
)


@register
class DeviceRule(Rule):
    meta = RuleMeta(
        id="TM307",
        title="Device moves are removed: the device is MindSpore's context",
        what="Removes `.to(device)`, `.cuda()` and `.cpu()` (keeping a dtype given to `.to`), statements "
        "that did nothing else (`model.to(device)`, `x = x.to(device)`), and the `device = "
        "torch.device(...)` definitions nothing uses any more; `torch.device` annotations become `str`.",
        why="MindSpore places tensors and Cells on the device set for the process "
        "(`mindspore.set_device`); there is no per-tensor device to move to, and MindSpore tensors "
        "have no `.cuda()`/`.to(device)` (TM934 notes where a GPU placement was dropped).",
        use_instead="Nothing per tensor; `mindspore.set_device('GPU')` once at start-up.",
        examples=(
            Example(
                before="import torch\n\ndevice = torch.device('cpu')\n\ndef step(model, x):\n    x = x.to(device)\n"
                "    model.to(device)\n    return model(x).cpu()\n",
                after="\ndef step(model, x):\n    return model(x)\n",
            ),
            Example(
                before="import torch\n\ndef run(model, data):\n    model.cuda()\n    return model(data.cuda(non_blocking=True))\n",
                after="\n# torch2ms: TM934 GPU placement removed: MindSpore runs on the device of its context\n"
                "def run(model, data):\n    return model(data)\n",
                findings=("TM934",),
            ),
        ),
        family="nn",
    )
    stage = API
    order = 50
    methods = frozenset({"to", "cuda", "cpu", "to_empty"})
    torch_only_methods = frozenset({"cuda"})
    # Reads entered statements and the reads of device names (kept by their own lines).
    unmarked_words = ()
    extra = (PLACEMENT,)

    def __init__(self) -> None:
        self.touched = False
        self.noted = False
        # Whether the module names torch.device at all (annotations are skipped otherwise).
        self.device_named: bool | None = None
        # Assignment targets (`x.device.type = ...` is left alone).
        self.targets: set[int] = set()

    def visit_SimpleStatementLine(self, node, ctx: ModuleContext) -> None:
        self.touched = False

    def _device_value(self, node: cst.BaseExpression, ctx: ModuleContext) -> bool:
        text = string_value(node)
        if text is not None:
            return bool(_DEVICE_STRING.match(text))
        if isinstance(node, cst.Call):
            func = node.func
            # `torch.device(...)`, or the companion's stand-in it has become already.
            return ctx.qualname(func) == "torch.device" or (
                isinstance(func, cst.Attribute)
                and func.attr.value == "device"
                and isinstance(func.value, cst.Name)
                and func.value.value == ctx.companion_import.module
            )
        if isinstance(node, cst.Name):
            return node.value in facts(ctx).devices or "device" in node.value.lower()
        if isinstance(node, cst.Attribute):
            return "device" in node.attr.value.lower()
        return False

    def _gpu(self, node: cst.BaseExpression | None, ctx: ModuleContext) -> bool:
        text = string_value(node) if node is not None else None
        return text is not None and not text.startswith("cpu")

    def leave_Call(self, original: cst.Call, updated: cst.Call, ctx: ModuleContext):
        func = updated.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in self.methods:
            return updated
        if ctx.qualname(func) is not None or any(a.star for a in updated.args):
            return updated
        name = func.attr.value
        if name == "to_empty":
            # A Cell's to_empty takes the same keywords; its `device` is a MindSpore device
            # string, and the device is the context's anyway.
            kept = [
                a
                for a in updated.args
                if a.keyword is None or a.keyword.value != "device"
            ]
            if len(kept) == len(updated.args):
                return updated
            ctx.applied.add("TM307")
            return updated.with_changes(args=tidy_args(kept))
        kept = []
        gpu = name == "cuda"
        for arg in updated.args:
            keyword = arg.keyword.value if arg.keyword is not None else None
            if keyword in _PLACEMENT:
                gpu = gpu or self._gpu(arg.value, ctx)
                continue
            if keyword is None and name in ("cuda", "cpu") and len(updated.args) == 1:
                continue  # `.cuda(0)`, `.cuda(device)`
            if keyword is None and self._device_value(arg.value, ctx):
                gpu = gpu or self._gpu(arg.value, ctx)
                continue
            if name != "to":
                return updated
            kept.append(arg)
        if gpu and not self.noted:
            self.noted = True
            ctx.report(
                "TM934",
                "GPU placement removed: MindSpore runs on the device of its context",
                PLACEMENT.use_instead,
                severity=NOTE,
            )
        ctx.applied.add("TM307")
        if kept:
            if len(kept) == len(updated.args):
                return updated
            return updated.with_changes(args=tidy_args(kept))
        self.touched = True
        return func.value

    def leave_SimpleStatementLine(
        self, original, updated: cst.SimpleStatementLine, ctx: ModuleContext
    ):
        if not self.touched:
            return updated
        self.touched = False
        body = [s for s in updated.body if not _idle(s)]
        if len(body) == len(updated.body):
            return updated
        if not body:
            return cst.RemoveFromParent()
        last = body[-1]
        if last.semicolon != cst.MaybeSentinel.DEFAULT:
            body[-1] = last.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(body=body)

    def visit_AssignTarget(self, node: cst.AssignTarget, ctx: ModuleContext) -> None:
        self.targets.add(id(node.target))

    def leave_Attribute(self, original, updated: cst.Attribute, ctx: ModuleContext):
        """`x.device.type` → `ms_aux.device_type(x.device)`: a MindSpore tensor names its device
        with a string ('CPU'), which has no `.type`; the entry gives torch's name for either."""
        value = updated.value
        if (
            updated.attr.value != "type"
            or not isinstance(value, cst.Attribute)
            or value.attr.value != "device"
            or id(original) in self.targets
            or ctx.qualname(original) is not None
        ):
            return updated
        ctx.applied.add("TM307")
        return cst.Call(ctx.companion("device_type"), [cst.Arg(value)])

    def leave_Annotation(self, original, updated: cst.Annotation, ctx: ModuleContext):
        """`device: torch.device` → `device: str`: MindSpore names devices with strings ('CPU')."""
        if self.device_named is None:
            self.device_named = any(
                use.name == "torch.device" for use in ctx.census.uses
            )
        if not self.device_named:
            return updated
        replacer = _DeviceAnnotation(ctx)
        result = visit(updated, replacer)
        if replacer.replaced:
            ctx.applied.add("TM307")
        return result

    def leave_IndentedBlock(
        self, original, updated: cst.IndentedBlock, ctx: ModuleContext
    ):
        if updated.body or not original.body:
            return updated
        return updated.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])

    # -- `device = torch.device(...)` once nothing reads it ------------------------------------
    def leave_Module(self, original, updated: cst.Module, ctx: ModuleContext):
        result = self._remove_unused_devices(updated, ctx)
        _forget_removed_companions(result, ctx)
        return result

    def _remove_unused_devices(self, updated: cst.Module, ctx: ModuleContext):
        devices = facts(ctx).devices
        if not devices:
            return updated
        # Statements the parse produced whose text never names a device are not entered.
        found = [ctx.lines_with(name) for name in sorted(devices)]
        lines = None if None in found else sorted({n for f in found for n in f})
        skip = ctx.untouched(ctx.parsed, lines)
        reads = _Reads(devices, skip)
        visit_statements(updated, reads, skip)
        # A definition the original never read is kept: it holds a value of its own (a module's
        # public name, a result), not one the removed moves consumed.
        unused = (devices - reads.read) & _read_in_source(ctx, devices)
        if not unused:
            return updated
        remover = _RemoveDefinitions(unused, ctx, skip)
        result = visit_statements(updated, remover, skip)
        if remover.removed:
            ctx.applied.add("TM307")
            # Findings about a removed definition (`torch.device` itself) go with it.
            gone = remover.removed
            ctx.findings[:] = [
                f for f in ctx.findings if not any(a <= f.line <= b for a, b in gone)
            ]
        return result


def _read_in_source(ctx: ModuleContext, names: set[str]) -> set[str]:
    """Those of ``names`` the source as written reads somewhere."""
    return {
        node.id
        for node in nodes(ctx, ast.Name)
        if isinstance(node.ctx, ast.Load) and node.id in names
    }


def _forget_removed_companions(module: cst.Module, ctx: ModuleContext) -> None:
    """Companion entries recorded for code this stage removed (an unused device definition, a
    statement that did nothing) are not imported or written."""
    entries = ctx.state.get(COMPANION)
    if not entries:
        return
    entries &= companion_reads(module, ctx, set(entries))


def _idle(small: cst.BaseSmallStatement) -> bool:
    """A statement left with nothing to do: `model`, `x = x`, `x, y = x, y`."""
    if isinstance(small, cst.Expr):
        return isinstance(small.value, (cst.Name, cst.Attribute))
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        target, value = small.targets[0].target, small.value
        return _code(target) == _code(value) and isinstance(
            value, (cst.Name, cst.Attribute, cst.Tuple)
        )
    return False


def _code(node: cst.CSTNode) -> str:
    code = cst.Module([]).code_for_node(node)
    return code.replace(" ", "").strip("()")


class _DeviceAnnotation(cst.CSTTransformer):
    def __init__(self, ctx: ModuleContext) -> None:
        super().__init__()
        self.ctx = ctx
        self.replaced = False
        self.attributes: set[int] = set()

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.attributes.add(id(node.attr))

    def leave_Attribute(self, original, updated):
        if self.ctx.qualname(original) == "torch.device":
            self.replaced = True
            return cst.Name("str")
        return updated

    def leave_Name(self, original, updated):
        if (
            id(original) not in self.attributes
            and self.ctx.aliases.get(original.value) == "torch.device"
        ):
            self.replaced = True
            return cst.Name("str")
        return updated


class _Reads(cst.CSTVisitor):
    def __init__(self, names: set[str], skip: frozenset[int] = frozenset()) -> None:
        super().__init__()
        self.names = names
        self.skip = skip
        self.read: set[str] = set()
        self.targets: set[int] = set()

    def on_visit(self, node: cst.CSTNode) -> bool:
        if id(node) in self.skip:
            return False
        return super().on_visit(node)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if isinstance(node.target, cst.Name):
            self.targets.add(id(node.target))

    def visit_Param(self, node: cst.Param) -> None:
        self.targets.add(id(node.name))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.targets.add(id(node.attr))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.targets.add(id(node.keyword))

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.names and id(node) not in self.targets:
            self.read.add(node.value)


class _RemoveDefinitions(cst.CSTTransformer):
    def __init__(
        self, names: set[str], ctx: ModuleContext, skip: frozenset[int] = frozenset()
    ) -> None:
        super().__init__()
        self.names = names
        self.ctx = ctx
        self.skip = skip
        self.removed: list[tuple[int, int]] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if id(node) in self.skip:
            return False
        return super().on_visit(node)

    def on_leave(self, original_node, updated_node):
        # LibCST rebuilds every node it walks: the statements keep their positions for later stages.
        result = super().on_leave(original_node, updated_node)
        info = self.ctx.statements.get(id(original_node))
        if info is not None and isinstance(result, cst.CSTNode):
            self.ctx.statements[id(result)] = info
            self.ctx.keep.append(result)
        return result

    def leave_SimpleStatementLine(self, original, updated: cst.SimpleStatementLine):
        small = updated.body[0] if len(updated.body) == 1 else None
        if isinstance(small, cst.Assign) and all(
            isinstance(t.target, cst.Name) and t.target.value in self.names
            for t in small.targets
        ):
            info = self.ctx.statements.get(id(original))
            self.removed.append(
                (info.line, info.end_line) if info is not None else (0, -1)
            )
            return cst.RemoveFromParent()
        return updated

    def leave_IndentedBlock(self, original, updated: cst.IndentedBlock):
        if updated.body or not original.body:
            return updated
        return updated.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])
