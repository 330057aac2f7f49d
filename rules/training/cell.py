"""``--style cell``: a plain training step becomes ``nn.TrainOneStepCell(nn.WithLossCell(...))``.

A layer on top of the functional rewrite: the plan of a step of the plain shape is written as a
training cell; any other plan goes to ``rewrite.apply`` unchanged, with a TM207 note that names
what kept it from the cell.

The plain shape (seed 003, 训练网络与梯度求导): one optimizer; one ``backward()`` that overwrites the
gradients (a reset before it); a forward ``loss = criterion(model(x), y)`` or ``out = model(x)``;
``loss = criterion(out, y)`` on plain names, bound inside the loop or outside it; ``step()`` right
after the backward, or after ``clip_grad_norm_(params, c)`` with a literal ``c >= 0.01`` (then a
custom cell clips with ``ops.clip_by_global_norm``); no other value of the forward read later.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.findings import NOTE
from ...migrator.rule import Example, define
from . import emit, rewrite
from .analysis import Plan
from .events import READS, Event
from .rewrite import _arg, _bound_in, _literal

SETTLED = ("reset", "backward", "step")
SCALED = frozenset({"unscale", "scaler_step", "scaler_update"})

_KEPT = """import torch

for data, target in loader:
    optimizer.zero_grad()
    output = model(data)
    loss = criterion(output, target)
    loss.backward()
    optimizer.step()
    correct += (output.argmax(1) == target).sum().item()
"""
_KEPT_AFTER = """import mindspore

def forward_fn(data, target):
    output = model(data)
    loss = criterion(output, target)
    return loss, output
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)
# torch2ms: TM207 --style cell kept the functional form: the loop reads `output` after the step; a training cell returns only the loss
for data, target in loader:
    (loss, output), grads = grad_fn(data, target)
    optimizer(grads)
    correct += (output.argmax(1) == target).sum().item()
"""
KEPT = define(
    "TM207",
    "--style cell kept the functional form",
    "With `--style cell`, reports a training step that is not of the plain shape and is written in "
    "the functional form instead, naming the reason: several optimizers, gradient accumulation, "
    "a loss scaler, clipping other than by a literal global norm, a loss that is not "
    "`criterion(model(x), y)` (two models, extra terms), values of the forward read after the step, "
    "statements between the forward and `step()`, or no loop around the step.",
    "`nn.TrainOneStepCell(nn.WithLossCell(model, criterion), optimizer)` computes "
    "`criterion(model(x), y)`, its gradients and the update, and returns only the loss (seed: "
    "训练网络与梯度求导); anything else the step does would be lost or moved.",
    "Keep the functional form (`value_and_grad` + `optimizer(grads)`), or write a custom training "
    "cell: subclass `nn.TrainOneStepCell` and do the extra work on `grads` in `construct` "
    "(seed 003, 自定义训练Cell).",
    severity=NOTE,
    family="training",
    examples=(
        Example(
            before=_KEPT,
            after=_KEPT_AFTER,
            findings=(
                "TM207 --style cell kept the functional form: the loop reads `output` after the step",
            ),
            options={"style": "cell"},
        ),
    ),
)


@dataclass(frozen=True)
class PlainStep:
    model: str
    criterion: str
    inputs: str
    labels: str
    loss: str
    optimizer: str
    clip: Event | None


def apply(plan: Plan, ctx: ModuleContext) -> list[cst.BaseStatement]:
    """The rewritten scope body: a training cell for a plain step under ``--style cell``, the
    functional form otherwise."""
    if ctx.options.style != "cell":
        return rewrite.apply(plan, ctx)
    step = plain_step(plan, ctx)
    if isinstance(step, str):
        ctx.report(
            KEPT.id,
            f"--style cell kept the functional form: {step}",
            KEPT.use_instead,
            node=_anchor(plan),
            severity=NOTE,
        )
        return rewrite.apply(plan, ctx)
    ctx.applied.add("TM208")
    emit.POSITION = ctx.copy_position
    try:
        return _build(plan, step, ctx)
    finally:
        emit.POSITION = None


def _anchor(plan: Plan) -> cst.CSTNode:
    """The loop around the step, else the first optimizer step."""
    region = plan.regions[0]
    if region.loop is not None:
        return region.loop
    steps = [e.stmt for e in plan.events.values() if e.kind in READS]
    return steps[0] if steps else region.backwards[0].stmt


def plain_step(plan: Plan, ctx: ModuleContext) -> PlainStep | str:
    """The parts of a plain training step, or why the plan is not one."""
    if len(plan.psets) > 1:
        return f"the step updates several optimizers ({_quoted(plan.psets)})"
    if plan.manual:
        return "the parameters are updated by hand through `.grad`"
    events = list(plan.events.values())
    kinds = [e.kind for e in events]
    if SCALED & set(kinds) or any(e.scaler for e in events if e.kind == "backward"):
        return "the step scales the loss (GradScaler)"
    region = plan.regions[0]
    if len(plan.regions) != 1 or kinds.count("backward") != 1:
        return "several backward() calls feed the optimizer"
    if kinds.count("step") != 1:
        return "the optimizer steps in more than one place"
    zero = plan.live.zero_mode.get((id(region.backwards[0].stmt), region.pset))
    if not zero:
        return "the gradients accumulate over several backward() calls before a step"
    if "clip_value" in kinds:
        return "the gradients are clipped by value (the training cell clips by the global norm only)"
    if kinds.count("clip_norm") > 1:
        return "the gradients are clipped more than once"
    other = [k for k in kinds if k not in (*SETTLED, "clip_norm")]
    if other:
        return (
            "the step does more than zero_grad, backward, clip_grad_norm_ and step "
            f"(`{other[0]}`)"
        )
    if region.sites is not None or region.vjp_stmt is not None or region.copies:
        return "the forward computation also serves code outside the differentiated function"
    if region.loop is None:
        return "the step is not inside a loop (a training cell is built once, before the loop that calls it)"
    models = _models(region, plan)
    if len(models) > 1:
        return f"the loss reads {_count(len(models))} models ({_quoted(models)})"
    if region.aux:
        return (
            f"the loop reads {_quoted(region.aux)} after the step; a training cell returns only "
            "the loss"
        )
    calls = _calls(region.stmts, ctx)
    if calls is None or calls[4] != region.first_name:
        return (
            "the loss is not `criterion(model(x), y)` (or `out = model(x)`; "
            "`loss = criterion(out, y)`) on plain names"
        )
    model, criterion, x, y, loss = calls
    if ctx.qualname(cst.parse_expression(criterion)) is not None:
        return f"the loss function `{criterion}` is a torch function, not a loss cell"
    if model in plan.scope.losses:
        return f"`{model}` is a loss, not a model"
    bound = _bound_in(region.loop)
    for name in (model, criterion):
        if name.split(".")[0] in bound:
            return f"`{name}` is bound inside the loop (a training cell holds one model and one loss)"
    step = next(e for e in events if e.kind == "step")
    clip = next((e for e in events if e.kind == "clip_norm"), None)
    if clip is not None:
        problem = _clip_problem(clip)
        if problem:
            return problem
    problem = _order_problem(plan, region, step, clip)
    if problem:
        return problem
    return PlainStep(model, criterion, x, y, loss, step.target, clip)


def _clip_problem(clip: Event) -> str | None:
    """Why ``ops.clip_by_global_norm`` in the cell would not compute what ``clip_grad_norm_`` did."""
    args = clip.call.args
    norm_type = _arg(args, 2, "norm_type")
    max_norm = _literal(_arg(args, 1, "max_norm"))
    if clip.assign_to is not None:
        return "the norm that clip_grad_norm_ returns is used"
    if norm_type is not None and _literal(norm_type) != 2.0:
        return "clip_grad_norm_ uses a norm other than 2"
    if max_norm is None or max_norm < 0.01:
        return (
            "the clipping threshold is not a literal >= 0.01 (only then does "
            "ops.clip_by_global_norm match clip_grad_norm_)"
        )
    return None


def _order_problem(plan: Plan, region, step: Event, clip: Event | None) -> str | None:
    """Why the update cannot move to where the forward stands: the step is elsewhere, or a
    statement between them would see the parameters already updated."""
    block = list(region.block)
    backward = region.backwards[0].stmt
    if (
        step.stmt not in block
        or backward not in block
        or block.index(backward) > block.index(step.stmt)
    ):
        return f"`{step.target}.step()` does not follow backward() in the same block"
    removed = {id(stmt) for stmt in region.stmts} | {
        id(e.stmt) for e in plan.events.values() if e.kind in ("reset", "backward")
    }
    starts = [
        block.index(stmt)
        for stmt in (*region.stmts, backward, region.call_at)
        if stmt in block
    ]
    backward_at, step_at = block.index(backward), block.index(step.stmt)
    kept = [s for s in block[min(starts) : backward_at] if id(s) not in removed]
    kept += [
        s
        for s in block[backward_at + 1 : step_at]
        if clip is None or s is not clip.stmt
    ]
    if not kept:
        return None
    code = cst.Module([]).code_for_node(kept[0]).strip().splitlines()[0]
    return (
        f"`{code}` runs between the forward and `{step.target}.step()`, where the training "
        "cell would have updated the parameters already"
    )


def _models(region, plan: Plan) -> list[str]:
    models: list[str] = []
    for stmt in region.stmts:
        for node in _calls_in(stmt):
            name = cst.Module([]).code_for_node(node.func)
            root = name.split(".")[0]
            for known in (name, root):
                if known in plan.scope.models and known not in models:
                    models.append(known)
                    break
    return models


def _calls_in(stmt: cst.CSTNode) -> list[cst.Call]:
    found: list[cst.Call] = []

    class Collect(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            found.append(node)

    stmt.visit(Collect())
    return found


def _count(n: int) -> str:
    return {2: "two", 3: "three"}.get(n, str(n))


def _quoted(names) -> str:
    return ", ".join(f"`{n}`" for n in names)


def _assign(stmt) -> tuple[str, cst.BaseExpression] | None:
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if not isinstance(small, cst.Assign) or len(small.targets) != 1:
        return None
    target = small.targets[0].target
    return (target.value, small.value) if isinstance(target, cst.Name) else None


def _call(expr, arity: int, ctx: ModuleContext) -> list | None:
    """[callee, arg...] for ``f(a, b)``: a dotted callee, arguments as nodes."""
    if (
        not isinstance(expr, cst.Call)
        or len(expr.args) != arity
        or any(a.keyword or a.star for a in expr.args)
    ):
        return None
    callee = ctx.dotted(expr.func)
    return [callee, *(a.value for a in expr.args)] if callee else None


def _name(node) -> str | None:
    return node.value if isinstance(node, cst.Name) else None


def _calls(stmts, ctx: ModuleContext) -> tuple[str, str, str, str, str] | None:
    """(model, criterion, x, y, loss) of ``out = model(x)``; ``loss = criterion(out, y)`` or of
    ``loss = criterion(model(x), y)``."""
    if len(stmts) == 2:
        first, second = _assign(stmts[0]), _assign(stmts[1])
        if not first or not second:
            return None
        forward = _call(first[1], 1, ctx)
        loss = _call(second[1], 2, ctx)
        if not forward or not loss or _name(loss[1]) != first[0]:
            return None
    elif len(stmts) == 1:
        only = _assign(stmts[0])
        second = only
        loss = _call(only[1], 2, ctx) if only else None
        forward = _call(loss[1], 1, ctx) if loss else None
        if not forward:
            return None
    else:
        return None
    x, y = _name(forward[1]), _name(loss[2])
    return (forward[0], loss[0], x, y, second[0]) if x and y else None


def _build(plan: Plan, step: PlainStep, ctx: ModuleContext) -> list:
    region = plan.regions[0]
    namer = rewrite.Namer(set(ctx.bound_names) | set(plan.scope.reads()))
    net = namer("train_net")
    with_loss = (
        emit.template(
            "mindspore.nn.WithLossCell(__M__, __C__)", M=step.model, C=step.criterion
        )
        .body[0]
        .value
    )
    cell_class: list = []
    if step.clip is None:
        build = emit.template(
            "__N__ = mindspore.nn.TrainOneStepCell(__W__, __O__)",
            N=net,
            W=with_loss,
            O=step.optimizer,
        )
    else:
        class_name = namer("TrainOneStepWithClipCell")
        cell_class = [clip_cell(class_name)]
        build = emit.template(
            "__N__ = __K__(__W__, __O__, __X__)",
            N=net,
            K=class_name,
            W=with_loss,
            O=step.optimizer,
            X=_arg(step.clip.call.args, 1, "max_norm"),
        )
    call = emit.template(
        "__L__ = __N__(__X__, __Y__)", L=step.loss, N=net, X=step.inputs, Y=step.labels
    )
    call = call.with_changes(leading_lines=getattr(region.call_at, "leading_lines", ()))
    ctx.copy_position(call, region.call_at)
    replace: dict[int, list] = {id(stmt): [] for stmt in region.stmts}
    for event in plan.events.values():
        replace[id(event.stmt)] = []
    replace[id(region.call_at)] = [call]
    hoist = _build_point(plan, region, step)
    before: dict[int, list] = {}
    if hoist is None:
        replace[id(region.call_at)] = [*cell_class, build, call]
    else:
        before[id(hoist)] = [*cell_class, build]
    return emit.rebuild(plan.scope.body, replace, before)


def _build_point(plan: Plan, region, step: PlainStep) -> cst.CSTNode | None:
    """The outermost loop around the step that rebinds none of the model, the criterion and the
    optimizer (the cell holds them; the inputs are passed at each call); None when the innermost
    loop rebinds one."""
    held = {name.split(".")[0] for name in (step.model, step.criterion, step.optimizer)}
    loop = region.loop
    if held & _bound_in(loop):
        return None
    while True:
        outer = plan.scope.places[id(loop)].loop
        if outer is None or held & _bound_in(outer):
            return loop
        loop = outer


_CLIP_CELL = """class __K__(mindspore.nn.TrainOneStepCell):
    def __init__(self, network, optimizer, max_norm):
        super().__init__(network, optimizer)
        self.max_norm = max_norm

    def construct(self, *inputs):
        loss, grads = mindspore.value_and_grad(self.network, None, self.weights)(*inputs)
        grads = mindspore.ops.clip_by_global_norm(grads, self.max_norm)
        self.optimizer(grads)
        return loss
"""


def clip_cell(class_name: str) -> cst.ClassDef:
    """A training cell that clips the gradients by their global norm (seed 003, 梯度裁剪)."""
    return cst.parse_statement(_CLIP_CELL).visit(
        emit._Fill({"__K__": cst.Name(class_name)})
    )
