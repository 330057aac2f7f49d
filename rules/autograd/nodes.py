"""Small LibCST helpers of the gradient rules: argument lookup, node builders, rewriters."""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext


def _is_backward_method(func: cst.BaseExpression, ctx: ModuleContext) -> bool:
    """``<tensor>.backward``: not a torch name, not ``self.backward``/``super().backward``."""
    if not (
        isinstance(func, cst.Attribute) and func.attr.value == "backward"
    ) or ctx.is_torch_name(func):
        return False
    base = func.value
    if isinstance(base, cst.Name) and base.value in ("self", "cls"):
        return False
    return not (
        isinstance(base, cst.Call)
        and isinstance(base.func, cst.Name)
        and base.func.value == "super"
    )


def _self_assignment(statement: cst.CSTNode) -> bool:
    """``x = x``, which is what ``x = x.requires_grad_()`` becomes."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    small = statement.body[0]
    return (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
        and small.targets[0].target.deep_equals(small.value)
    )


def _kw(call: cst.Call, name: str) -> cst.Arg | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def _is_true(node: cst.BaseExpression | None) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


def _elements(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(node, (cst.List, cst.Tuple)):
        return [e.value for e in node.elements]
    return [node]


# Attributes that are views of their tensor: the view records the tape as its base does.
VIEW_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "real", "imag"})


def derived_requires_grad(
    value: cst.BaseExpression, table: dict[tuple[str, str], cst.BaseExpression]
) -> bool | None:
    """torch's ``requires_grad`` of an expression built from a tensor, when it is certain:
    ``.data`` and ``.detach()`` never require grad; a view (``.T``, ``.real``) requires it
    as its base does (in a no-grad block too: a view shares its base's autograd state)."""
    if isinstance(value, cst.Attribute) and value.attr.value == "data":
        return False
    if isinstance(value, cst.Call):
        func = value.func
        name = func.attr.value if isinstance(func, cst.Attribute) else None
        if isinstance(func, cst.Name):
            name = func.value
        # x.detach(), or what TM1xx made of it already: ops.stop_gradient(x)
        if (name == "detach" and not value.args) or name == "stop_gradient":
            return False
        return None
    if isinstance(value, cst.Attribute) and value.attr.value in VIEW_ATTRIBUTES:
        base = value.value
        if isinstance(base, cst.Name):
            known = table.get(("requires_grad", base.value))
            flag = None
            if isinstance(known, cst.Name) and known.value in ("True", "False"):
                flag = known.value == "True"
        else:
            flag = derived_requires_grad(base, table)
        return flag
    return None


class _ReplaceGrad(cst.CSTTransformer):
    """``x.grad`` → a gradient variable, ``None`` or zeros; ``x.requires_grad``/``x.is_leaf`` → a literal."""

    def __init__(self, table: dict[tuple[str, str], cst.BaseExpression]) -> None:
        super().__init__()
        self.table = table
        self.changed = False

    def leave_Attribute(
        self, original: cst.Attribute, updated: cst.Attribute
    ) -> cst.BaseExpression:
        replacement = None
        if isinstance(original.value, cst.Name):
            replacement = self.table.get((original.attr.value, original.value.value))
        elif original.attr.value == "requires_grad":
            flag = derived_requires_grad(original.value, self.table)
            replacement = None if flag is None else cst.Name(str(flag))
        if replacement is not None:
            self.changed = True
            return replacement.deep_clone()
        return updated

    def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
        return False

    def visit_AugAssign(self, node: cst.AugAssign) -> bool:
        node.value.visit(self)
        return False

    def leave_AugAssign(self, original, updated):
        return updated.with_changes(value=original.value.visit(self))

    def visit_Del(self, node: cst.Del) -> bool:
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False


class _ReplaceNode(cst.CSTTransformer):
    def __init__(self, target: cst.CSTNode, replacement: cst.BaseExpression) -> None:
        super().__init__()
        self.target = target
        self.replacement = replacement

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        return self.replacement if original is self.target else updated


class _StopGradient(cst.CSTTransformer):
    """Wrap the assigned value of a statement run under ``no_grad`` in ``ops.stop_gradient``."""

    def __init__(self, ctx: ModuleContext) -> None:
        super().__init__()
        self.ctx = ctx

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.Assign:
        return updated.with_changes(
            value=_call(self.ctx, "mindspore.ops.stop_gradient", [updated.value])
        )


def _call(
    ctx: ModuleContext,
    func: str | cst.BaseExpression,
    args: list,
    kwargs: dict | None = None,
) -> cst.Call:
    head = ctx.name(func) if isinstance(func, str) else func
    arguments = [cst.Arg(a) for a in args]
    for key, value in (kwargs or {}).items():
        arguments.append(
            cst.Arg(
                value,
                keyword=cst.Name(key),
                equal=cst.AssignEqual(
                    cst.SimpleWhitespace(""), cst.SimpleWhitespace("")
                ),
            )
        )
    return cst.Call(head, arguments)


def _tuple(items: list[cst.BaseExpression], parens: bool = True) -> cst.Tuple:
    return cst.Tuple(
        [cst.Element(item) for item in items],
        lpar=[cst.LeftParen()] if parens else [],
        rpar=[cst.RightParen()] if parens else [],
    )


def _target(names: list[str], parens: bool = True) -> cst.BaseExpression:
    if len(names) == 1:
        return cst.Name(names[0])
    return _tuple([cst.Name(n) for n in names], parens)


def _assign(
    target: cst.BaseExpression, value: cst.BaseExpression
) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target)], value)])
