"""TM107: a custom `torch.autograd.Function` becomes an `nn.Cell` with `construct` and `bprop`."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

import libcst as cst

from ...migrator.aliases import dotted, resolve
from ...migrator.context import ModuleContext
from ...migrator.engine import visit
from ...migrator.findings import WARNING
from ...migrator.rule import GRADIENT, Example, Rule, RuleMeta, register
from ..common.ast_nodes import statements
from . import findings as tm9
from .names import binds, is_simple_assignment, reads

FUNCTION_BASES = frozenset(
    {"torch.autograd.Function", "torch.autograd.function.Function"}
)
SAVED = frozenset({"saved_tensors", "saved_variables"})


@dataclass
class Plan:
    """How one Function class maps: forward parameters, saved tensors, ctx attributes."""

    params: list[str]
    grads: list[str]
    saved: list[cst.BaseExpression] = field(default_factory=list)
    attrs: dict[str, cst.BaseExpression] = field(default_factory=dict)
    # Forward statements bprop repeats to rebuild saved intermediate values.
    recompute: list[cst.CSTNode] = field(default_factory=list)
    out: str = "out"
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


# A Function's `symbolic` static method serves torch.onnx export only; it computes nothing.
ONNX_ONLY = "symbolic"


def _method(cls: cst.ClassDef, name: str) -> cst.FunctionDef | None:
    for statement in cls.body.body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value == name:
            return statement
    return None


def _decorator_names(fn: cst.FunctionDef) -> list[str]:
    names = []
    for decorator in fn.decorators:
        node = decorator.decorator
        while isinstance(node, cst.Attribute):
            node = node.attr
        names.append(node.value if isinstance(node, cst.Name) else "")
    return names


def _param_names(fn: cst.FunctionDef) -> list[str] | None:
    params = fn.params
    if (
        params.star_arg is not cst.MaybeSentinel.DEFAULT
        or params.star_kwarg is not None
        or params.kwonly_params
        or params.posonly_params
    ):
        return None
    return [p.name.value for p in params.params]


def _ctx_uses(node: cst.CSTNode, ctx_name: str) -> list[cst.Attribute]:
    found: list[cst.Attribute] = []

    class _Find(cst.CSTVisitor):
        def visit_Attribute(self, inner: cst.Attribute) -> None:
            if isinstance(inner.value, cst.Name) and inner.value.value == ctx_name:
                found.append(inner)

    node.visit(_Find())
    return found


def plan(cls: cst.ClassDef, ctx: ModuleContext) -> Plan | None:
    """None when the class is not a Function; a plan with ``problems`` when it cannot be mapped."""
    if (
        not any(ctx.qualname(base.value) in FUNCTION_BASES for base in cls.bases)
        or len(cls.bases) != 1
    ):
        return None
    forward, backward = _method(cls, "forward"), _method(cls, "backward")
    result = Plan([], [])
    if forward is None or backward is None:
        result.problems.append(
            "forward/backward not both defined (setup_context style)"
        )
        return result
    others = [
        s.name.value
        for s in cls.body.body
        if isinstance(s, cst.FunctionDef)
        and s.name.value not in ("forward", "backward", ONNX_ONLY)
    ]
    if _method(cls, ONNX_ONLY) is not None:
        result.warnings.append(
            f"`{ONNX_ONLY}` dropped: it only tells torch's ONNX exporter how to write the op"
        )
    if others:
        result.problems.append(f"method `{others[0]}`")
    for fn in (forward, backward):
        for name in _decorator_names(fn):
            if name == "once_differentiable":
                result.warnings.append(
                    "`once_differentiable` dropped: the bprop may be differentiated again"
                )
            elif name != "staticmethod":
                result.problems.append(f"decorator `{name}`")
    fparams, bparams = _param_names(forward), _param_names(backward)
    if not fparams or not bparams:
        result.problems.append("variadic or keyword-only parameters")
        return result
    ctx_name = fparams[0]
    result.params, result.grads = fparams[1:], bparams[1:]
    rebound = set()
    for statement in forward.body.body:
        rebound |= binds(statement)
    returned = [
        s.body[0].value
        for s in forward.body.body
        if isinstance(s, cst.SimpleStatementLine) and isinstance(s.body[0], cst.Return)
    ]
    out_name = (
        returned[-1].value
        if len(returned) == 1 and isinstance(returned[-1], cst.Name)
        else None
    )
    taken = set(result.params) | set(result.grads)
    result.out = "out" if "out" not in taken else "out_"
    stable = set(result.params) - rebound
    for statement in forward.body.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
                func = small.value.func
                if (
                    isinstance(func, cst.Attribute)
                    and isinstance(func.value, cst.Name)
                    and func.value.value == ctx_name
                ):
                    if func.attr.value != "save_for_backward":
                        result.problems.append(f"`ctx.{func.attr.value}`")
                        continue
                    for arg in small.value.args:
                        value = arg.value
                        if isinstance(value, cst.Name) and value.value in stable:
                            result.saved.append(cst.Name(value.value))
                        elif isinstance(value, cst.Name) and value.value == out_name:
                            result.saved.append(cst.Name(result.out))
                        elif isinstance(value, cst.Name) and _recompute(
                            forward, value.value, stable, result
                        ):
                            result.saved.append(cst.Name(value.value))
                        else:
                            result.problems.append(
                                "a saved value that is not recomputable from the inputs"
                            )
            elif isinstance(small, cst.Assign) and len(small.targets) == 1:
                target = small.targets[0].target
                if (
                    isinstance(target, cst.Attribute)
                    and isinstance(target.value, cst.Name)
                    and target.value.value == ctx_name
                ):
                    if reads(small.value) - stable - {
                        "None",
                        "True",
                        "False",
                    } and not _only_globals(small.value, ctx, stable):
                        result.problems.append(
                            f"`ctx.{target.attr.value}` holds a value computed in forward"
                        )
                    else:
                        result.attrs[target.attr.value] = small.value
    known = {"save_for_backward"} | set(result.attrs)
    for use in _ctx_uses(forward, ctx_name):
        if use.attr.value not in known:
            result.problems.append(f"`ctx.{use.attr.value}`")
    bctx = bparams[0]
    for use in _ctx_uses(backward, bctx):
        if use.attr.value not in SAVED and use.attr.value not in result.attrs:
            result.problems.append(f"`ctx.{use.attr.value}`")
    if len(result.grads) > 1 or result.out in taken:
        pass
    return result


def _recompute(
    forward: cst.FunctionDef, name: str, stable: set[str], result: Plan
) -> bool:
    """Add the forward statements that compute ``name`` from the inputs to ``result.recompute``."""
    needed, chosen = {name}, []
    statements = list(forward.body.body)
    for statement in reversed(statements):
        bound = binds(statement)
        if not bound & needed:
            continue
        if not is_simple_assignment(statement):
            return False
        chosen.append(statement)
        needed = (needed - bound) | reads(statement)
    if needed & ({name} | {n for s in chosen for n in binds(s)}):
        return False
    for statement in reversed(chosen):
        if not any(statement is s for s in result.recompute):
            result.recompute.append(statement)
    result.recompute.sort(
        key=lambda s: next(i for i, t in enumerate(statements) if t is s)
    )
    return True


def _only_globals(
    node: cst.BaseExpression, ctx: ModuleContext, stable: set[str]
) -> bool:
    return all(name in stable or name in ctx.aliases for name in reads(node))


class _Backward(cst.CSTTransformer):
    """Rewrite ``ctx.saved_tensors`` / ``ctx.<attr>`` and the returned gradients of ``backward``."""

    def __init__(self, ctx_name: str, plan_: Plan) -> None:
        super().__init__()
        self.ctx_name = ctx_name
        self.plan = plan_
        self.depth = 0

    def visit_FunctionDef(self, node) -> bool:
        self.depth += 1
        return self.depth == 1

    def leave_FunctionDef(self, original, updated):
        self.depth -= 1
        return updated

    def leave_Attribute(self, original, updated):
        if (
            isinstance(original.value, cst.Name)
            and original.value.value == self.ctx_name
        ):
            if original.attr.value in SAVED:
                return cst.Tuple([cst.Element(e) for e in self.plan.saved])
            if original.attr.value in self.plan.attrs:
                return self.plan.attrs[original.attr.value].deep_clone()
        return updated

    def leave_Return(self, original, updated: cst.Return):
        value = updated.value
        if value is None:
            return updated
        if isinstance(value, cst.Tuple):
            elements = list(value.elements)
            if any(isinstance(e, cst.StarredElement) for e in elements):
                return updated
        else:
            elements = [cst.Element(value)]
        # torch takes one gradient per input given to `apply`; MindSpore one per construct
        # parameter, so the parameters left at their defaults get None.
        missing = len(self.plan.params) - len(elements)
        if missing <= 0 and isinstance(value, cst.Tuple):
            return updated
        elements = [
            e.with_changes(comma=cst.MaybeSentinel.DEFAULT) for e in elements
        ] + [cst.Element(cst.Name("None")) for _ in range(max(missing, 0))]
        return updated.with_changes(value=cst.Tuple(elements))


def _drop_self_assignments(body: list) -> list:
    kept = []
    for statement in body:
        if (
            isinstance(statement, cst.SimpleStatementLine)
            and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Assign)
        ):
            small = statement.body[0]
            if len(small.targets) == 1 and small.targets[0].target.deep_equals(
                small.value
            ):
                continue
            target = small.targets[0].target if len(small.targets) == 1 else None
            if isinstance(target, cst.Tuple) and isinstance(small.value, cst.Tuple):
                pairs = list(zip(target.elements, small.value.elements))
                if len(target.elements) == len(small.value.elements) and all(
                    a.value.deep_equals(b.value) for a, b in pairs
                ):
                    continue
        kept.append(statement)
    return kept or [cst.SimpleStatementLine([cst.Pass()])]


def _function_classes(ctx: ModuleContext) -> bool:
    """Whether a class of the source derives from a Function base (as ``plan`` reads bases)."""
    for cls in statements(ctx, ast.ClassDef):
        for base in cls.bases:
            if base.__class__ is ast.Name:
                name = ctx.aliases.get(base.id)
            else:
                written = dotted(base)
                name = resolve(written, ctx.aliases) if written else None
            if name in FUNCTION_BASES:
                return True
    return False


class _Classes(cst.CSTVisitor):
    """Collects the Function classes that convert."""

    def __init__(self, convertible: set[str], ctx: ModuleContext) -> None:
        self.convertible = convertible
        self.ctx = ctx

    def visit_ClassDef(self, cls: cst.ClassDef) -> None:
        found = plan(cls, self.ctx)
        if found is not None and not found.problems:
            self.convertible.add(cls.name.value)

    def visit_SimpleStatementLine(self, line: cst.SimpleStatementLine) -> bool:
        return False  # holds no class definition


@register
class CustomFunctionRule(Rule):
    meta = RuleMeta(
        id="TM107",
        title="Custom `torch.autograd.Function` becomes an `nn.Cell` with `bprop`",
        what="Rewrites a `torch.autograd.Function` subclass with static `forward(ctx, ...)` and "
        "`backward(ctx, grad)` as an `nn.Cell`: `forward` becomes `construct(self, ...)`, `backward` "
        "becomes `bprop(self, *inputs, out, dout)` returning a tuple of gradients, "
        "`ctx.save_for_backward` of inputs or of the output becomes the bprop's own arguments, and "
        "`F.apply(...)` becomes `F()(...)`. `ctx` features a bprop cannot express are reported (TM915) "
        "and the class is left as it is.",
        why="The seed (梯度求导) explains that PyTorch's recorded graph is made of `Function` "
        "objects whose `backward` the autograd engine calls in reverse order; a custom Function "
        "stores what its backward needs on `ctx` during that recorded forward pass. MindSpore "
        "records nothing; a Cell's custom gradient is its `bprop` method, "
        "which receives the inputs, the forward output `out` and its gradient `dout`, and is used by "
        "`mindspore.grad` in place of differentiating `construct` (checked in PyNative mode).",
        use_instead="`class F(nn.Cell): def construct(self, x): ...; def bprop(self, x, out, dout): return (dout * ...,)`.",
        examples=(
            Example(
                before="import torch\n\n"
                "class Clip(torch.autograd.Function):\n"
                "    @staticmethod\n"
                "    def forward(ctx, x, limit):\n"
                "        ctx.save_for_backward(x)\n"
                "        ctx.limit = limit\n"
                "        return x.clamp(-limit, limit)\n\n"
                "    @staticmethod\n"
                "    def backward(ctx, grad_output):\n"
                "        (x,) = ctx.saved_tensors\n"
                "        return grad_output * (x.abs() < ctx.limit), None\n\n\n"
                "def clip(x):\n"
                "    return Clip.apply(x, 1.0)\n",
                after="from mindspore import nn\n\n"
                "class Clip(nn.Cell):\n"
                "    def construct(self, x, limit):\n"
                "        return x.clamp(-limit, limit)\n\n"
                "    def bprop(self, x, limit, out, grad_output):\n"
                "        return grad_output * (x.abs() < limit), None\n\n\n"
                "def clip(x):\n"
                "    return Clip()(x, 1.0)\n",
            ),
        ),
        family="autograd",
    )
    stage = GRADIENT
    order = 125  # after TM101, which keys statements by identity
    triggers = ("Function",)
    methods = frozenset({"apply"})

    def __init__(self) -> None:
        self.convertible: set[str] = set()
        # Classes left unconverted, with the reason: their `.apply(...)` calls raise.
        self.refused: dict[str, str] = {}

    def visit_Module(self, node: cst.Module, ctx: ModuleContext) -> None:
        # A Function base is spelled `Function`, or bound to another name by an alias.
        if (
            "Function" in ctx.source
            or any(target in FUNCTION_BASES for target in ctx.aliases.values())
        ) and _function_classes(ctx):
            visit(node, _Classes(self.convertible, ctx))

    def leave_Module(self, original, updated: cst.Module, ctx: ModuleContext):
        for name, reason in self.refused.items():
            for line in ctx.lines_with(f"{name}.apply(") or ():
                ctx.report(
                    "TM915",
                    f"`{name}.apply(...)` runs the `torch.autograd.Function` `{name}`, which "
                    f"was not converted ({reason}): the call raises NotImplementedError",
                    tm9.FUNCTION_CTX.use_instead,
                    line=line,
                )
        # `F.apply` mentions no torch name, so the engine may not have entered its statement.
        if not self.convertible:
            return updated
        # The engine's walk keeps the nodes it does not change (and so their source text).
        return visit(updated, _Apply(self.convertible, ctx))

    def leave_ClassDef(
        self, original: cst.ClassDef, updated: cst.ClassDef, ctx: ModuleContext
    ):
        found = plan(original, ctx)
        if found is None:
            return updated
        if found.problems:
            ctx.report(
                "TM915",
                f"`torch.autograd.Function` `{original.name.value}` not converted: {found.problems[0]}",
                tm9.FUNCTION_CTX.use_instead,
                node=original,
            )
            self.refused[original.name.value] = found.problems[0]
            return updated
        for warning in found.warnings:
            ctx.report(
                "TM915",
                warning,
                tm9.FUNCTION_CTX.use_instead,
                node=original,
                severity=WARNING,
            )
        body = []
        for statement in updated.body.body:
            if (
                isinstance(statement, cst.FunctionDef)
                and statement.name.value == "forward"
            ):
                new = self._construct(statement, found)
            elif (
                isinstance(statement, cst.FunctionDef)
                and statement.name.value == "backward"
            ):
                new = self._bprop(statement, found)
            elif (
                isinstance(statement, cst.FunctionDef)
                and statement.name.value == ONNX_ONLY
            ):
                continue
            else:
                new = statement
            ctx.copy_position(new, statement)
            for inner, old in zip(
                getattr(new.body, "body", ()), getattr(statement.body, "body", ())
            ):
                ctx.copy_position(inner, old)
            body.append(new)
        ctx.applied.add("TM107")
        result = updated.with_changes(
            bases=[cst.Arg(ctx.name("mindspore.nn.Cell"))],
            body=updated.body.with_changes(body=body),
        )
        ctx.copy_position(result, original)
        return result

    @staticmethod
    def _without_decorators(fn: cst.FunctionDef) -> cst.FunctionDef:
        if not fn.decorators:
            return fn
        return fn.with_changes(
            decorators=[],
            leading_lines=[*fn.leading_lines, *fn.decorators[0].leading_lines],
        )

    def _construct(self, fn: cst.FunctionDef, found: Plan) -> cst.FunctionDef:
        ctx_name = fn.params.params[0].name.value
        body = []
        for statement in fn.body.body:
            if (
                isinstance(statement, cst.SimpleStatementLine)
                and len(statement.body) == 1
            ):
                small = statement.body[0]
                target = (
                    small.value.func
                    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)
                    else (
                        small.targets[0].target
                        if isinstance(small, cst.Assign) and len(small.targets) == 1
                        else None
                    )
                )
                if (
                    isinstance(target, cst.Attribute)
                    and isinstance(target.value, cst.Name)
                    and target.value.value == ctx_name
                ):
                    continue
            body.append(statement)
        params = fn.params.with_changes(
            params=[
                fn.params.params[0].with_changes(name=cst.Name("self")),
                *fn.params.params[1:],
            ]
        )
        fn = self._without_decorators(fn)
        return fn.with_changes(
            name=cst.Name("construct"),
            params=params,
            body=fn.body.with_changes(
                body=body or [cst.SimpleStatementLine([cst.Pass()])]
            ),
        )

    def _bprop(self, fn: cst.FunctionDef, found: Plan) -> cst.FunctionDef:
        ctx_name = fn.params.params[0].name.value
        updated = fn.visit(_Backward(ctx_name, found))
        body = [s.deep_clone() for s in found.recompute] + list(updated.body.body)
        if len(found.grads) == 1:
            dout = found.grads[0]
        else:
            dout = "dout" if "dout" not in found.params + found.grads else "dout_"
            unpack = cst.SimpleStatementLine(
                [
                    cst.Assign(
                        [
                            cst.AssignTarget(
                                cst.Tuple(
                                    [cst.Element(cst.Name(g)) for g in found.grads],
                                    lpar=[],
                                    rpar=[],
                                )
                            )
                        ],
                        cst.Name(dout),
                    )
                ]
            )
            body.insert(0, unpack)
        names = ["self", *found.params, found.out, dout]
        params = fn.params.with_changes(params=[cst.Param(cst.Name(n)) for n in names])
        updated = self._without_decorators(updated)
        return updated.with_changes(
            name=cst.Name("bprop"),
            params=params,
            body=updated.body.with_changes(body=_drop_self_assignments(body)),
        )


class _Apply(cst.CSTTransformer):
    """``F.apply`` → ``F()`` for the Function classes that became Cells."""

    def __init__(self, names: set[str], ctx: ModuleContext) -> None:
        super().__init__()
        self.names = names
        self.ctx = ctx

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute):
        if (
            original.attr.value == "apply"
            and isinstance(original.value, cst.Name)
            and original.value.value in self.names
        ):
            self.ctx.applied.add("TM107")
            return cst.Call(updated.value)
        return updated

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
