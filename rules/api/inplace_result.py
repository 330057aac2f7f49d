"""When `inplace=True` on a functional activation may be dropped: `x = F.relu(x, inplace=True)`.

torch's in-place activation updates the tensor `x` names and returns it; MindSpore's returns a new
tensor. The two agree when nothing can read the old tensor after the call: the statement binds
the result back to `x` (and reads `x` only as the call's input), and the tensor `x` held was made
fresh just before, in the same block (by arithmetic, an out-of-place torch operation, or a layer
that returns a new tensor), with no other statement between touching `x`. A function's
parameter, a view (`x = h[:, 0]`), a value also held elsewhere (`y = x`), or a layer that may
return its input (Identity, Dropout) keeps the finding.
"""

from __future__ import annotations

import ast

import libcst as cst

from ...migrator.context import ModuleContext
from ..common.dataflow import parse
from ..nn.common import receiver_kind
from . import BY_TORCH_NAME
from .receivers import fresh_temporary

# torch layers whose output is always a new tensor (never their input or a view of it).
_FRESH_LAYERS = frozenset(
    "torch.nn." + name
    for name in (
        "Linear",
        "Bilinear",
        "Conv1d",
        "Conv2d",
        "Conv3d",
        "ConvTranspose1d",
        "ConvTranspose2d",
        "ConvTranspose3d",
        "BatchNorm1d",
        "BatchNorm2d",
        "BatchNorm3d",
        "LayerNorm",
        "GroupNorm",
        "Embedding",
    )
)
_FUNCTIONAL = "torch.nn.functional."


def rebinds_fresh_input(call: cst.Call, name: str, ctx: ModuleContext) -> bool:
    """Whether ``call`` (an in-place activation of the tensor named ``name``, being visited) can
    drop `inplace`: see the module docstring."""
    if len(ctx.stack) < 2:
        return False
    line, owner = ctx.stack[-1], ctx.stack[-2]
    if not _assigns_back(line, call, name) or _loads(line, name) != 1:
        return False
    siblings = _block_of(owner, line)
    if siblings is None:
        return False
    index = next(i for i, statement in enumerate(siblings) if statement is line)
    for statement in reversed(siblings[:index]):
        if _mentions(statement, name):
            value = _assigned_value(statement, name)
            return value is not None and _fresh(value, ctx)
    return False


def _assigns_back(line: cst.CSTNode, call: cst.Call, name: str) -> bool:
    """`name = <expression holding call>` as the line's only statement."""
    value = _assigned_value(line, name)
    if value is None:
        return False
    found = []

    class _Find(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if node is call:
                found.append(node)
            return not found

    value.visit(_Find())
    return bool(found)


def _assigned_value(line: cst.CSTNode, name: str) -> cst.BaseExpression | None:
    if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1):
        return None
    small = line.body[0]
    if not (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
        and small.targets[0].target.value == name
    ):
        return None
    return small.value


def _names(statement: cst.CSTNode, name: str) -> list[ast.Name]:
    return [
        node
        for node in ast.walk(parse(statement))
        if isinstance(node, ast.Name) and node.id == name
    ]


def _loads(statement: cst.CSTNode, name: str) -> int:
    return sum(isinstance(n.ctx, ast.Load) for n in _names(statement, name))


def _mentions(statement: cst.CSTNode, name: str) -> bool:
    if _names(statement, name):
        return True
    tree = parse(statement)
    # `global x` / `nonlocal x`, and a nested function or class of that name.
    return any(
        (isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names)
        or (
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and node.name == name
        )
        for node in ast.walk(tree)
    )


def _block_of(owner: cst.CSTNode, line: cst.CSTNode) -> list[cst.CSTNode] | None:
    """The statements of the block of ``owner`` that holds ``line``."""
    found: list[list[cst.CSTNode]] = []

    class _Find(cst.CSTVisitor):
        def visit_IndentedBlock(self, node: cst.IndentedBlock) -> bool:
            if any(statement is line for statement in node.body):
                found.append(list(node.body))
            return not found

    owner.visit(_Find())
    return found[0] if found else None


def _fresh(value: cst.BaseExpression, ctx: ModuleContext) -> bool:
    """Whether ``value`` is certainly a new tensor that nothing else holds."""
    if not isinstance(value, cst.Call):
        return fresh_temporary(value, ctx)
    qualified = ctx.qualname(value.func)
    if qualified is not None and qualified.startswith(_FUNCTIONAL):
        # An in-place activation returns its input; so may dropout (outside training).
        return fresh_temporary(value, ctx) and not _may_be_inplace(value, qualified)
    if qualified is None and isinstance(value.func, (cst.Name, cst.Attribute)):
        kind = receiver_kind(value.func, ctx)
        if kind is not None:
            return kind.startswith("layer:") and kind[6:] in _FRESH_LAYERS
        if isinstance(value.func, cst.Attribute) and _on_module(value.func.value, ctx):
            return False  # a Module's method or a layer of unknown kind, not a tensor method
    return fresh_temporary(value, ctx)


def _on_module(receiver: cst.BaseExpression, ctx: ModuleContext) -> bool:
    root = receiver
    while isinstance(root, cst.Attribute):
        root = root.value
    if isinstance(root, cst.Name) and root.value == "self":
        return True
    kind = receiver_kind(receiver, ctx)
    return kind is not None and kind.startswith(("class:", "layer:", "list:", "seq:"))


def _may_be_inplace(call: cst.Call, qualified: str) -> bool:
    """An `inplace=` keyword, or a positional argument where torch's function takes it."""
    if any(
        arg.keyword is not None and arg.keyword.value == "inplace" for arg in call.args
    ):
        return True
    mapping = BY_TORCH_NAME.get(qualified)
    params = mapping.params if mapping is not None else ()
    if "inplace" not in params:
        return mapping is None and len(call.args) > 1
    positional = sum(arg.keyword is None for arg in call.args)
    return positional > params.index("inplace")


def drop_rebound_inplace(
    mapping, args: list, kwargs: dict, original, ctx: ModuleContext
):
    """``args`` and ``kwargs`` without `inplace` where ``original`` (the call as visited) rebinds
    a fresh input (`rebinds_fresh_input`); unchanged otherwise."""
    params = list(mapping.params)
    if (
        original is None
        or "inplace" not in mapping.unsafe_args
        or "inplace" not in params
    ):
        return args, kwargs
    index = params.index("inplace")
    if "inplace" not in kwargs and len(args) != index + 1:
        return args, kwargs
    first = args[0] if args else kwargs.get(params[0])
    if first is None or not isinstance(first.value, cst.Name):
        return args, kwargs
    if not rebinds_fresh_input(original, first.value.value, ctx):
        return args, kwargs
    if "inplace" in kwargs:
        return args, {k: v for k, v in kwargs.items() if k != "inplace"}
    return args[:index], kwargs


def writes_into_a_slice(mapping, call: cst.Call, ctx: ModuleContext) -> bool:
    """Whether ``call`` asks for `inplace=True` on a name its function (or module) binds to a
    subscript (`x = h[:, 0]`): torch then also changes `h`, MindSpore's indexing copies, so no
    write into `x` reaches `h`."""
    params = list(mapping.params)
    if "inplace" not in params or not call.args:
        return False
    index = params.index("inplace")
    flag = next(
        (a.value for a in call.args if a.keyword and a.keyword.value == "inplace"), None
    )
    if flag is None and len(call.args) > index and call.args[index].keyword is None:
        flag = call.args[index].value
    if not (isinstance(flag, cst.Name) and flag.value == "True"):
        return False
    first = call.args[0].value
    if not isinstance(first, cst.Name):
        return isinstance(first, cst.Subscript)
    scope = next(
        (n for n in reversed(ctx.stack) if isinstance(n, cst.FunctionDef)), None
    )
    pending = list(scope.body.body) if scope is not None else []
    if scope is None and ctx.stack:
        pending = list(getattr(ctx.stack[0], "body", ()))
    while pending:
        node = pending.pop()
        if isinstance(node, cst.Assign) and isinstance(node.value, cst.Subscript):
            if any(
                isinstance(t.target, cst.Name) and t.target.value == first.value
                for t in node.targets
            ):
                return True
        if isinstance(node, _HOLD_STATEMENTS):
            # An assignment is a statement: expressions need no visit.
            for field in _STATEMENT_FIELDS:
                value = getattr(node, field, None)
                if isinstance(value, (tuple, list)):
                    pending.extend(value)
                elif isinstance(value, cst.CSTNode):
                    pending.append(value)
    return False


# Nodes that hold statements, and the fields they hold them in.
_HOLD_STATEMENTS = (
    cst.BaseCompoundStatement,
    cst.SimpleStatementLine,
    cst.BaseSuite,
    cst.Else,
    cst.Finally,
    cst.ExceptHandler,
    cst.ExceptStarHandler,
    cst.MatchCase,
)
_STATEMENT_FIELDS = ("body", "orelse", "handlers", "finalbody", "cases")
