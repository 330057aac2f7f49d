"""TM412: torch-only plumbing that does nothing on MindSpore is removed or stood in for.

- `@torch.jit.script`, `@torch.compile(...)` and the compiler hints (`@torch.compiler.disable`,
  `allow_in_graph`, `assume_constant_result`) are removed as decorators: they change how torch runs
  the function, not what it computes.
- Statements that only configure TorchScript or torch.fx (`torch._C._jit_set_profiling_mode(False)`,
  `torch.fx.wrap('name')`) are removed; their results were discarded.
- Assignments to cuDNN's settings (`torch.backends.cudnn.benchmark = True`, `deterministic`,
  `enabled`, `allow_tf32`) and to the CUDA matmul precision flags
  (`torch.backends.cuda.matmul.allow_tf32`) are removed, with a note: they choose CUDA kernels, and MindSpore chooses its own
  (`mindspore.set_context(deterministic='ON')` where reproducible GPU kernels are wanted). A
  module that reads a setting back keeps them, written into the companion's stand-ins, which hold
  torch's values on a CPU build.
- On the CPU target, reads of a tensor's `.is_cuda`/`.is_xpu`/`.is_mps` become False and of
  `.is_cpu` True (a MindSpore tensor has no such attribute, and everything runs on the CPU),
  unless the module assigns an attribute of that name itself.
- `torch.autocast(..., enabled=False)`, `torch.cpu.amp.autocast(enabled=False)` and, on the CPU
  target, CUDA autocast (which torch disables
  without CUDA) become the companion's no-op context manager: torch computes in full precision
  there, as MindSpore does. Other autocast regions are left to the TM940 finding.
"""

from __future__ import annotations

import ast
import bisect

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.findings import NOTE
from ...migrator.rule import API, Example, Rule, RuleMeta, register
from ..companion.table_plumbing import CONDITIONAL as AUTOCAST_ENTRIES

_DECORATORS = frozenset(
    {
        "torch.jit.script",
        "torch.jit.script_if_tracing",
        "torch.compile",
        # Hints to torch's compiler: which functions it skips, keeps whole or treats as constant.
        "torch.compiler.disable",
        "torch._dynamo.disable",
        "torch.compiler.allow_in_graph",
        "torch._dynamo.allow_in_graph",
        "torch.compiler.assume_constant_result",
        "torch._dynamo.assume_constant_result",
    }
)
# Calls whose only effect is on TorchScript, torch.fx or torch's pytree registry; as statements
# they do nothing.
_NO_EFFECT = frozenset(
    {
        "torch.fx.wrap",
        # torch's pytree registry serves its compiler, export and FSDP; nothing reads it here.
        "torch.utils._pytree.register_pytree_node",
        "torch.utils._pytree._register_pytree_node",
        "torch.utils._pytree.register_constant",
    }
)
_NO_EFFECT_PREFIXES = ("torch._C._jit_",)
# Settings that only choose CUDA kernels; assigning a value that calls nothing does nothing else.
_KERNEL_SETTINGS = frozenset(
    [
        *(
            "torch.backends.cudnn." + name
            for name in ("benchmark", "deterministic", "enabled", "allow_tf32")
        ),
        # TF32 and reduced-precision reductions apply to CUDA matmuls only
        *(
            "torch.backends.cuda.matmul." + name
            for name in (
                "allow_tf32",
                "allow_fp16_reduced_precision_reduction",
                "allow_bf16_reduced_precision_reduction",
            )
        ),
    ]
)
_KERNEL_NOTE = (
    "CUDA kernel setting (cuDNN, TF32 matmuls) removed: it chooses CUDA kernels, and "
    "MindSpore chooses its own",
    (
        "Nothing on CPU; `mindspore.set_context(deterministic='ON')` where reproducible GPU or "
        "Ascend kernels are wanted."
    ),
)


def _wraps_torch(call: cst.Call, ctx: ModuleContext) -> bool:
    """`@functools.wraps(torch.nn.Module.cuda)`: it only gives the function torch's name and
    docstring, and the function keeps its own name."""
    return (
        ctx.dotted(call.func) in ("wraps", "functools.wraps")
        and "wraps" not in ctx.aliases
        and len(call.args) == 1
        and call.args[0].keyword is None
        and (ctx.qualname(call.args[0].value) or "").startswith("torch.")
    )


# Tensor attributes telling whether it lives on a device a CPU-target program never uses, and
# `is_cpu`, which holds for every tensor there.
_DEVICE_FLAGS = frozenset({"is_cuda", "is_xpu", "is_mps", "is_cpu"})
# Where `enabled` stands among each autocast's positional parameters.
_ENABLED_POSITION = {
    "torch.autocast": 2,
    "torch.amp.autocast": 2,
    "torch.cuda.amp.autocast": 0,
    "torch.cpu.amp.autocast": 0,
}


@register
class PlumbingRule(Rule):
    meta = RuleMeta(
        id="TM412",
        title="Torch-only plumbing is removed where it does nothing on MindSpore",
        what="Removes `@torch.jit.script`/`@torch.compile` decorators and statements that only "
        "configure TorchScript or torch.fx (`torch._C._jit_*`, `torch.fx.wrap('name')`); turns "
        "autocast regions in which torch computes in full precision (`enabled=False`, or CUDA "
        "autocast on the CPU target) into the companion's no-op context manager.",
        why="Scripting and compiling change how torch runs code, not what it computes; the JIT and "
        "fx settings only steer torch's own compilers. MindSpore computes in the dtypes of its "
        "inputs unless mixed precision is set on the network, which is torch's full precision.",
        use_instead="Nothing; compile with `mindspore.jit` where the code is graph-compatible.",
        examples=(
            Example(
                before="import torch\n\n\n@torch.jit.script\ndef gelu(x):\n    return x * 0.5\n\n\n"
                "torch._C._jit_set_profiling_mode(False)\n",
                after="\n\ndef gelu(x):\n    return x * 0.5\n",
            ),
            Example(
                before="import torch\n\ndef norm(x):\n    with torch.autocast(device_type='cuda', "
                "enabled=False):\n        return x * 2\n",
                after="import ms_aux\n\ndef norm(x):\n    with ms_aux.autocast(device_type='cuda', "
                "enabled=False):\n        return x * 2\n",
            ),
        ),
        family="api",
    )
    stage = API
    order = 40
    watched_attributes = _DEVICE_FLAGS
    # Reads unmarked statements only at the census's sites of the flags it watches.
    unmarked_words = ()

    def __init__(self) -> None:
        self.removed = False

    def leave_Decorator(self, original: cst.Decorator, updated, ctx: ModuleContext):
        target = original.decorator
        if isinstance(target, cst.Call):
            if _wraps_torch(target, ctx):
                ctx.applied.add(self.meta.id)
                return cst.RemoveFromParent()
            target = target.func
        if ctx.qualname(target) in _DECORATORS:
            ctx.applied.add(self.meta.id)
            return cst.RemoveFromParent()
        return updated

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated, ctx: ModuleContext
    ):
        body = [s for s in original.body if not self._no_effect(s, ctx)]
        if len(body) == len(original.body):
            return updated
        ctx.applied.add(self.meta.id)
        self.removed = True
        kept = [s for s, o in zip(updated.body, original.body) if o in body]
        if not kept:
            return cst.RemoveFromParent()
        kept[-1] = kept[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(body=kept)

    def leave_IndentedBlock(self, original, updated: cst.IndentedBlock, ctx):
        if updated.body or not original.body:
            return updated
        return updated.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])

    def _no_effect(self, small: cst.BaseSmallStatement, ctx: ModuleContext) -> bool:
        if (
            isinstance(small, cst.Assign)
            and _kernel_setting(small, ctx)
            and not _settings_read(ctx)
        ):
            ctx.report(self.meta.id, *_KERNEL_NOTE, node=small, severity=NOTE)
            return True
        if not isinstance(small, cst.Expr) or not isinstance(small.value, cst.Call):
            return False
        name = ctx.qualname(small.value.func) or ""
        return name in _NO_EFFECT or name.startswith(_NO_EFFECT_PREFIXES)

    def leave_Module(self, original, updated: cst.Module, ctx: ModuleContext):
        if ctx.options.target != "cpu":
            return updated
        # Where the module reads the flags, and whether it assigns one itself: from the census.
        sites = ctx.census.attributes
        read = {name for name in _DEVICE_FLAGS if name in sites and sites[name].lines}
        assigned = {name for name in read if sites[name].assigned}
        if not read or assigned:
            return updated
        lines = sorted(line for name in read for line in sites[name].lines)
        body = list(updated.body)
        replaced = False
        for i, statement in enumerate(body):
            if not _holds_line(statement, lines, ctx):
                continue
            flags = _DeviceFlags(ctx)
            statement.visit(flags)  # the reads within this statement
            if not flags.read:
                continue
            flags.replacing = True
            body[i] = statement.visit(flags)
            replaced = replaced or flags.replaced
        if not replaced:
            return updated
        ctx.applied.add(self.meta.id)
        return updated.with_changes(body=body)

    def leave_Call(self, original: cst.Call, updated: cst.Call, ctx: ModuleContext):
        name = ctx.qualname(original.func)
        if name not in AUTOCAST_ENTRIES or not full_precision_autocast(
            original, name, ctx.options.target
        ):
            return updated
        ctx.applied.add(self.meta.id)
        args = [a for a in updated.args if not _read_device(a, ctx)]
        if len(args) < len(updated.args):
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(
            func=ctx.companion(AUTOCAST_ENTRIES[name]), args=args
        )


def _holds_line(statement: cst.CSTNode, lines: list[int], ctx: ModuleContext) -> bool:
    """Whether a top-level statement may hold one of ``lines`` (one a rule wrote may)."""
    info = ctx.statements.get(id(statement))
    if info is None:
        return True
    i = bisect.bisect_left(lines, info.line)
    return i < len(lines) and lines[i] <= info.end_line


def _settings_read(ctx: ModuleContext) -> bool:
    """Whether the module reads a kernel setting back (`if torch.backends.cudnn.enabled:`):
    then its assignments are kept, into the companion's stand-ins (library/backend_flags.py)."""
    cached = ctx.state.get("kernel_settings_read")
    if cached is None:
        leaves = {name.rsplit(".", 1)[1] for name in _KERNEL_SETTINGS}
        tree = ctx.state.get("ast")
        cached = isinstance(tree, ast.Module) and any(
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Load)
            and node.attr in leaves
            and "backends" in ast.unparse(node.value)
            for node in ast.walk(tree)
        )
        ctx.state["kernel_settings_read"] = cached
    return cached


def _kernel_setting(assign: cst.Assign, ctx: ModuleContext) -> bool:
    return all(
        ctx.qualname(t.target) in _KERNEL_SETTINGS for t in assign.targets
    ) and not _calls(assign.value)


def _calls(node: cst.CSTNode) -> bool:
    found = []

    class _Finder(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> bool:
            found.append(call)
            return False

    node.visit(_Finder())
    return bool(found)


class _DeviceFlags(cst.CSTTransformer):
    """Finds, then replaces with False, reads of `<expr>.is_cuda` (and `is_xpu`, `is_mps`).

    The replacing walk enters only the nodes that hold such a read: every other node stays the
    same object, so what other rules recorded about it by identity still holds."""

    def __init__(self, ctx: ModuleContext) -> None:
        super().__init__()
        self.ctx = ctx
        self.read: set[str] = set()
        self.assigned: set[str] = set()
        self.replacing = False
        self.replaced = False
        self.stack: list[int] = []
        self.path: set[int] = set()  # the nodes holding a read

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.replacing and id(node) not in self.path:
            return False
        self.stack.append(id(node))
        return super().on_visit(node)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        for target in _targets(node.target):
            if isinstance(target, cst.Attribute):
                self.assigned.add(target.attr.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Attribute):
            self.assigned.add(node.target.attr.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if isinstance(node.target, cst.Attribute):
            self.assigned.add(node.target.attr.value)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in _DEVICE_FLAGS and self.ctx.qualname(node) is None:
            self.read.add(node.attr.value)
            self.path.update(self.stack)

    def on_leave(self, original, updated):
        if self.stack and self.stack[-1] == id(original):
            self.stack.pop()
        result = super().on_leave(original, updated)
        if not self.replacing:
            return result
        # LibCST rebuilds every node it walks: the statements keep their positions.
        info = self.ctx.statements.get(id(original))
        if (
            info is not None
            and isinstance(result, cst.CSTNode)
            and result is not original
        ):
            self.ctx.statements[id(result)] = info
            self.ctx.keep.append(result)
        return result

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute):
        if (
            not self.replacing
            or original.attr.value not in _DEVICE_FLAGS
            or original.attr.value in self.assigned
            or self.ctx.qualname(original) is not None
        ):
            return updated
        self.replaced = True
        value = "True" if original.attr.value == "is_cpu" else "False"
        return cst.Name(value, lpar=updated.lpar, rpar=updated.rpar)


def _targets(node: cst.BaseExpression):
    if isinstance(node, (cst.Tuple, cst.List)):
        for element in node.elements:
            yield from _targets(element.value)
    else:
        yield node


def _read_device(arg: cst.Arg, ctx: ModuleContext) -> bool:
    """`device_type=x.device.type`: the no-op ignores it, so the value, only read from names, is
    dropped (also once written `ms_aux.device_type(x.device)`, torch's name for the device of a
    MindSpore tensor)."""
    value = arg.value
    if (
        isinstance(value, cst.Call)
        and len(value.args) == 1
        and ctx.dotted(value.func) == f"{ctx.companion_import.module}.device_type"
    ):
        value = value.args[0].value
    return (
        arg.keyword is not None
        and arg.keyword.value == "device_type"
        and not isinstance(value, cst.SimpleString)
        and ctx.dotted(value) is not None
    )


def _argument(call: cst.Call, keyword: str, position: int) -> cst.BaseExpression | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in call.args):
        return None
    return positional[position].value if position < len(positional) else None


def full_precision_autocast(call: cst.Call, name: str, target: str) -> bool:
    """An autocast in which torch computes in full precision: `enabled=False`, or CUDA autocast on
    a CPU target (torch disables it where CUDA is absent)."""
    if any(a.star for a in call.args):
        return False
    enabled = _argument(call, "enabled", _ENABLED_POSITION[name])
    if isinstance(enabled, cst.Name) and enabled.value == "False":
        return True
    if target != "cpu":
        return False
    if name == "torch.cuda.amp.autocast":
        return True
    device = _argument(call, "device_type", 0)
    return isinstance(device, cst.SimpleString) and device.evaluated_value == "cuda"
