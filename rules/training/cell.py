"""``--style cell``: a loop of the plain shape becomes ``nn.TrainOneStepCell(nn.WithLossCell(...))``.

The plain shape: one optimizer, one backward that overwrites G, a forward of the form
``out = model(x)``, ``loss = criterion(out, y)`` (or ``loss = criterion(model(x), y)``), and the step
right after the backward with nothing in between (no clipping, no loss scaling). Other shapes keep
the functional form.
"""

from __future__ import annotations

import libcst as cst

from . import emit
from .analysis import Plan

SETTLED = ("reset", "backward", "step")


def plain_shape(plan: Plan) -> tuple[str, str, str, str, str] | None:
    """(model, criterion, x, y, loss) when the plan is a plain training step."""
    if len(plan.regions) != 1 or plan.manual or len(plan.psets) != 1:
        return None
    region = plan.regions[0]
    if (
        region.aux
        or region.first_name is None
        or region.loop is None
        or len(region.backwards) != 1
    ):
        return None
    if not plan.live.zero_mode.get((id(region.backwards[0].stmt), region.pset), False):
        return None
    kinds = [e.kind for e in plan.events.values()]
    if (
        any(k not in (*SETTLED, "clip_norm") for k in kinds)
        or kinds.count("step") != 1
        or kinds.count("backward") != 1
        or kinds.count("clip_norm") > 1
    ):
        return None
    calls = _calls(region.stmts)
    if calls is None:
        return None
    model, criterion, x, y, loss = calls
    if loss != region.first_name or region.params != [x, y]:
        return None
    step = next(e for e in plan.events.values() if e.kind == "step")
    block = list(region.block)
    backward = region.backwards[0].stmt
    clip = next((e for e in plan.events.values() if e.kind == "clip_norm"), None)
    between = 2 if clip is not None else 1
    if (
        backward not in block
        or step.stmt not in block
        or block.index(step.stmt) != block.index(backward) + between
        or (
            clip is not None
            and (
                clip.stmt not in block
                or block.index(clip.stmt) != block.index(backward) + 1
            )
        )
        or (clip is not None and not _plain_clip(clip))
    ):
        return None
    return model, criterion, x, y, loss


def _plain_clip(event) -> bool:
    """``clip_grad_norm_(params, c)`` with a literal ``c >= 0.01``: ``ops.clip_by_global_norm`` matches."""
    from .rewrite import _arg, _literal

    args = event.call.args
    max_norm = _literal(_arg(args, 1, "max_norm"))
    norm_type = _arg(args, 2, "norm_type")
    return (
        event.assign_to is None
        and max_norm is not None
        and max_norm >= 0.01
        and (norm_type is None or _literal(norm_type) == 2.0)
    )


def _name(node) -> str | None:
    return node.value if isinstance(node, cst.Name) else None


def _assign(stmt) -> tuple[str, cst.BaseExpression] | None:
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if not isinstance(small, cst.Assign) or len(small.targets) != 1:
        return None
    target = _name(small.targets[0].target)
    return (target, small.value) if target else None


def _call(expr, arity: int) -> list[str] | None:
    """[callee, arg...] for ``f(a, b)`` with plain names."""
    if (
        not isinstance(expr, cst.Call)
        or len(expr.args) != arity
        or any(a.keyword or a.star for a in expr.args)
    ):
        return None
    callee = _name(expr.func)
    args = [a.value for a in expr.args]
    return [callee, *args] if callee else None


def _calls(stmts) -> tuple[str, str, str, str, str] | None:
    if len(stmts) == 2:
        first, second = _assign(stmts[0]), _assign(stmts[1])
        if not first or not second:
            return None
        forward = _call(first[1], 1)
        loss = _call(second[1], 2)
        if not forward or not loss or _name(loss[1]) != first[0]:
            return None
        x, y = _name(forward[1]), _name(loss[2])
        return (forward[0], loss[0], x, y, second[0]) if x and y else None
    if len(stmts) == 1:
        only = _assign(stmts[0])
        loss = _call(only[1], 2) if only else None
        forward = _call(loss[1], 1) if loss else None
        if not forward:
            return None
        x, y = _name(forward[1]), _name(loss[2])
        return (forward[0], loss[0], x, y, only[0]) if x and y else None
    return None


def apply_cell(plan: Plan, shape: tuple[str, str, str, str, str], namer) -> list:
    model, criterion, x, y, loss = shape
    region = plan.regions[0]
    net = namer("train_net")
    optimizer = next(e for e in plan.events.values() if e.kind == "step").target
    clip = next((e for e in plan.events.values() if e.kind == "clip_norm"), None)
    cell_class: list = []
    if clip is None:
        build = emit.template(
            "__N__ = mindspore.nn.TrainOneStepCell(mindspore.nn.WithLossCell(__M__, __C__), __O__)",
            N=net,
            M=model,
            C=criterion,
            O=optimizer,
        )
    else:
        from .rewrite import _arg

        class_name = namer("TrainOneStepWithClipCell")
        cell_class = [clip_cell(class_name)]
        build = emit.template(
            "__N__ = __K__(mindspore.nn.WithLossCell(__M__, __C__), __O__, __X__)",
            N=net,
            K=class_name,
            M=model,
            C=criterion,
            O=optimizer,
            X=_arg(clip.call.args, 1, "max_norm"),
        )
    train = emit.template("__N__.set_train()", N=net)
    call = emit.template("__L__ = __N__(__X__, __Y__)", L=loss, N=net, X=x, Y=y)
    call = call.with_changes(leading_lines=getattr(region.call_at, "leading_lines", ()))
    replace: dict[int, list] = {}
    for stmt in region.stmts:
        replace[id(stmt)] = []
    replace[id(region.call_at)] = [call]
    for event in plan.events.values():
        if event.kind in (*SETTLED, "clip_norm"):
            replace[id(event.stmt)] = []
    from .rewrite import _hoist_point

    hoist = _hoist_point(region, plan, emit.name(optimizer + ".parameters"))
    before: dict[int, list] = {}
    if hoist is None:
        replace[id(region.call_at)] = [*cell_class, build, train, call]
    else:
        before[id(hoist)] = [*cell_class, build, train]
    return emit.rebuild(plan.scope.body, replace, before)


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
