"""Library callables that run a training step, kept as data: their gradient behaviour written out
as PyTorch code, summarised like a helper of the module itself.

timm's ``NativeScaler`` (``timm.utils``, copied by DeiT, MAE, ConvNeXt and BEiT) scales the loss
with a GradScaler, runs backward, and when ``need_update`` is set unscales, clips, steps and updates
the scale. After conversion the scaler object is a MindSpore ``DynamicLossScaler`` and each call
becomes the statements of its summary on gradient values (seed 003: unscale, clip, ``all_finite``,
``optimizer(grads)``, ``adjust``).
"""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext

# Each body restates what the library documents its call does, on ``self`` as the GradScaler.
STEP_CALLABLES: dict[str, str] = {
    "NativeScaler": (
        "def __call__(self, loss, optimizer, clip_grad=None, clip_mode='norm', parameters=None,\n"
        "             create_graph=False, need_update=True):\n"
        "    self.scale(loss).backward(create_graph=create_graph)\n"
        "    if need_update:\n"
        "        if clip_grad is not None:\n"
        "            self.unscale_(optimizer)\n"
        "            dispatch_clip_grad(parameters, clip_grad, mode=clip_mode)\n"
        "        self.step(optimizer)\n"
        "        self.update()\n"
    ),
}
LIBRARY_CLASSES: dict[str, str] = {
    "timm.utils.NativeScaler": "NativeScaler",
    "timm.utils.cuda.NativeScaler": "NativeScaler",
}
# Library step callables with no MindSpore form, and why.
UNMAPPED: dict[str, str] = {
    "timm.utils.ApexScaler": "apex's `amp.scale_loss` has no MindSpore form",
    "timm.utils.cuda.ApexScaler": "apex's `amp.scale_loss` has no MindSpore form",
}
# ``GradScaler`` arguments of the scaler a library callable builds (timm: device 'cuda').
SCALER_DEVICE_DEFAULT = "cuda"


def imported_names(module: cst.Module, ctx: ModuleContext) -> dict[str, str]:
    """Local name -> qualified name, for the library step callables the module imports."""
    names: dict[str, str] = {}
    for stmt in module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if (
                isinstance(small, cst.ImportFrom)
                and small.module is not None
                and not small.relative
            ):
                origin = ctx.dotted(small.module)
                if isinstance(small.names, cst.ImportStar):
                    continue
                for alias in small.names:
                    qualified = f"{origin}.{ctx.dotted(alias.name)}"
                    if qualified in LIBRARY_CLASSES or qualified in UNMAPPED:
                        local = (
                            alias.asname.name.value
                            if alias.asname
                            else alias.name.value
                        )
                        names[local] = qualified
            elif isinstance(small, cst.Import):
                for alias in small.names:
                    full = ctx.dotted(alias.name) or ""
                    if full.split(".")[0] == "timm":
                        local = alias.asname.name.value if alias.asname else "timm"
                        for qualified in (*LIBRARY_CLASSES, *UNMAPPED):
                            if qualified.startswith(full + ".") or alias.asname is None:
                                suffix = (
                                    qualified[len(full) :]
                                    if alias.asname
                                    else qualified[4:]
                                )
                                names[local + suffix] = qualified
    return names


def template(kind: str) -> cst.FunctionDef:
    node = cst.parse_statement(STEP_CALLABLES[kind])
    assert isinstance(node, cst.FunctionDef)
    return node


_TEMPLATES: dict[str, object] = {}


def library_summary(kind: str, ctx: ModuleContext):
    """The summary of a library step callable, from its body in ``STEP_CALLABLES``."""
    from .summaries import Summaries, summarize_one

    found = Summaries()
    node = _TEMPLATES.get(kind)
    if node is None:
        node = _TEMPLATES[kind] = template(kind)
    summarize_one(f"{kind}.__call__", node, kind, found, _TemplateContext(ctx))
    summary = found.callables.get(kind)
    if summary is not None:
        summary.library = True
        summary.key = "library:" + kind
    return summary


class _TemplateContext:
    """Name resolution inside a library template: ``dispatch_clip_grad`` is timm's."""

    def __init__(self, ctx: ModuleContext) -> None:
        self.ctx = ctx

    dotted = staticmethod(ModuleContext.dotted)

    def qualname(self, node: cst.CSTNode) -> str | None:
        name = ModuleContext.dotted(node)
        if name == "dispatch_clip_grad":
            return "timm.utils.dispatch_clip_grad"
        return None


def library_instances(module: cst.Module, ctx: ModuleContext) -> dict:
    """Names bound to a library step callable (``loss_scaler = NativeScaler()``), with its summary."""
    imported = imported_names(module, ctx)
    if not imported:
        return {}
    instances: dict = {}
    unmapped: dict = {}

    class _Assigns(cst.CSTVisitor):
        def visit_Assign(self, assign) -> None:
            value = assign.value
            if not isinstance(value, cst.Call):
                return
            qualified = imported.get(ctx.dotted(value.func) or "")
            if qualified is None:
                return
            for target in assign.targets:
                name = ctx.dotted(target.target)
                if name is None:
                    continue
                if qualified in UNMAPPED:
                    unmapped[name] = UNMAPPED[qualified]
                    continue
                summary = library_summary(LIBRARY_CLASSES[qualified], ctx)
                if summary is not None:
                    instances[name] = summary

    module.visit(_Assigns())
    ctx.state["training.unmapped_steps"] = unmapped
    return instances


def constructor(
    call: cst.Call, imported: dict[str, str], ctx: ModuleContext
) -> cst.Call | None:
    """``NativeScaler(device=...)`` -> the ``torch.amp.GradScaler(device)`` it builds, for the
    GradScaler conversion; None for another call."""
    qualified = imported.get(ctx.dotted(call.func) or "")
    if qualified not in LIBRARY_CLASSES:
        return None
    device: cst.BaseExpression = cst.SimpleString(repr(SCALER_DEVICE_DEFAULT))
    for i, arg in enumerate(call.args):
        if (
            arg.keyword is None
            and i == 0
            or arg.keyword is not None
            and arg.keyword.value == "device"
        ):
            device = arg.value
        elif arg.star:
            return None
    return cst.Call(
        func=cst.parse_expression("torch.amp.GradScaler"),
        args=[cst.Arg(device, keyword=cst.Name("device"))],
    )


def library_classes(module: cst.Module, ctx: ModuleContext) -> list:
    """The summaries of the library step classes the module imports (unmapped ones left out)."""
    kinds = sorted(
        {
            LIBRARY_CLASSES[q]
            for q in imported_names(module, ctx).values()
            if q in LIBRARY_CLASSES
        }
    )
    summaries = [library_summary(kind, ctx) for kind in kinds]
    return [s for s in summaries if s is not None]


# ``accelerate.Accelerator``: ``backward(loss)`` is ``loss.backward()`` and ``clip_grad_norm_(p, n)``
# is torch's, when the accelerator neither accumulates (it would divide the loss and skip steps
# inside ``accumulate()``) nor runs mixed precision (it would scale the loss with its own scaler).
ACCELERATOR_CLASSES = frozenset(
    {"accelerate.Accelerator", "accelerate.accelerator.Accelerator"}
)
ACCELERATOR_PLAIN = {
    "gradient_accumulation_steps": ("1",),
    "mixed_precision": ("None", "'no'", '"no"'),
}


def accelerators(module: cst.Module, ctx: ModuleContext) -> dict[str, str | None]:
    """Names bound to an ``Accelerator(...)``: None where its ``backward`` is a plain backward, else
    why it is not."""
    local: set[str] = set()
    for stmt in module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if (
                isinstance(small, cst.ImportFrom)
                and small.module is not None
                and not small.relative
            ):
                origin = ctx.dotted(small.module)
                if isinstance(small.names, cst.ImportStar):
                    continue
                for alias in small.names:
                    if f"{origin}.{ctx.dotted(alias.name)}" in ACCELERATOR_CLASSES:
                        local.add(
                            alias.asname.name.value
                            if alias.asname
                            else alias.name.value
                        )
            elif isinstance(small, cst.Import):
                for alias in small.names:
                    if ctx.dotted(alias.name) == "accelerate":
                        head = alias.asname.name.value if alias.asname else "accelerate"
                        local.add(f"{head}.Accelerator")
    if not local:
        return {}
    found: dict[str, str | None] = {}

    class _Assigns(cst.CSTVisitor):
        def visit_Assign(self, assign) -> None:
            value = assign.value
            if not isinstance(value, cst.Call) or ctx.dotted(value.func) not in local:
                return
            reason = _accelerator_reason(value)
            for target in assign.targets:
                name = ctx.dotted(target.target)
                if name is not None:
                    found[name] = reason

    module.visit(_Assigns())
    return found


def _accelerator_reason(call: cst.Call) -> str | None:
    for arg in call.args:
        if arg.star:
            return "its `Accelerator(...)` takes arguments the rule cannot read"
        if arg.keyword is None:
            continue
        plain = ACCELERATOR_PLAIN.get(arg.keyword.value)
        if plain is None:
            continue
        text = cst.Module([]).code_for_node(arg.value)
        if text not in plain:
            what = (
                "divides the loss by the accumulation steps and skips optimizer steps inside "
                "`accumulate()`"
                if arg.keyword.value == "gradient_accumulation_steps"
                else "scales the loss with its own GradScaler"
            )
            return f"`Accelerator({arg.keyword.value}={text})` {what}"
    return None
