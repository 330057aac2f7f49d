"""TM412: torch-only plumbing that does nothing on MindSpore is removed or stood in for.

- `@torch.jit.script` and `@torch.compile(...)` decorators are removed: they change how torch runs
  the function, not what it computes.
- Statements that only configure TorchScript or torch.fx (`torch._C._jit_set_profiling_mode(False)`,
  `torch.fx.wrap('name')`) are removed; their results were discarded.
- `torch.autocast(..., enabled=False)` and, on the CPU target, CUDA autocast (which torch disables
  without CUDA) become the companion's no-op context manager: torch computes in full precision
  there, as MindSpore does. Other autocast regions are left to the TM940 finding.
"""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.rule import API, Example, Rule, RuleMeta, register
from ..companion.table_plumbing import CONDITIONAL as AUTOCAST_ENTRIES

_DECORATORS = frozenset({"torch.jit.script", "torch.compile"})
# Calls whose only effect is on TorchScript or torch.fx; as statements they do nothing.
_NO_EFFECT = frozenset({"torch.fx.wrap"})
_NO_EFFECT_PREFIXES = ("torch._C._jit_",)
# Where `enabled` stands among each autocast's positional parameters.
_ENABLED_POSITION = {
    "torch.autocast": 2,
    "torch.amp.autocast": 2,
    "torch.cuda.amp.autocast": 0,
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

    def __init__(self) -> None:
        self.removed = False

    def leave_Decorator(self, original: cst.Decorator, updated, ctx: ModuleContext):
        target = original.decorator
        if isinstance(target, cst.Call):
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
        if not isinstance(small, cst.Expr) or not isinstance(small.value, cst.Call):
            return False
        name = ctx.qualname(small.value.func) or ""
        return name in _NO_EFFECT or name.startswith(_NO_EFFECT_PREFIXES)

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


def _read_device(arg: cst.Arg, ctx: ModuleContext) -> bool:
    """`device_type=x.device.type`: the no-op ignores it, and a MindSpore tensor's `.device` is a
    string without `.type`, so the value, only read from names, is dropped."""
    return (
        arg.keyword is not None
        and arg.keyword.value == "device_type"
        and not isinstance(arg.value, cst.SimpleString)
        and ctx.dotted(arg.value) is not None
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
