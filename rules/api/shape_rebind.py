"""In-place methods that change a tensor's shape (`x.t_()`, `x.transpose_(0, 1)`, `x.squeeze_()`).

torch changes the tensor object itself; MindSpore 2.10 has no such methods, and `ops.assign` cannot
change a shape. Where the tensor is a name that nothing else holds, binding the name to the
out-of-place result is the same: `x.t_()` becomes `(x := x.t())`, an expression whose value is the
new tensor, as torch's method returns it. A name the module also binds to another name, puts in a
container, returns or yields may be held elsewhere, which would keep the old shape: there the
method is left with its finding, unless the name was bound to a fresh temporary before the call
and handed to nothing since (`y = torch.matmul(a, b)` then `y.unsqueeze_(2)`).
"""

from __future__ import annotations

import ast

import libcst as cst

from ...migrator.context import ModuleContext
from ..common.ast_nodes import nodes
from .inplace_chain import fresh_before

# torch's shape-changing in-place methods -> their out-of-place method.
SHAPE_METHODS = {
    "t_": "t",
    "transpose_": "transpose",
    "swapdims_": "swapdims",
    "swapaxes_": "swapaxes",
    "squeeze_": "squeeze",
    "unsqueeze_": "unsqueeze",
}
_CACHE = "shared_names"
# Statements and expressions that hand their value on as it is.
_HANDING_ON = (
    ast.Assign,
    ast.AnnAssign,
    ast.NamedExpr,
    ast.Return,
    ast.Yield,
    ast.YieldFrom,
)
# The other nodes the scan reads.
_HOLDING = (
    ast.Tuple,
    ast.List,
    ast.Set,
    ast.Dict,
    ast.For,
    ast.AsyncFor,
    ast.Global,
    ast.Nonlocal,
    ast.comprehension,
    ast.Lambda,
)


def _held(node: ast.AST) -> set[str]:
    """Names whose object `node` hands on as it is (`b = a`, `[a]`, `return a`)."""
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return {name for element in node.elts for name in _held(element)}
    if isinstance(node, ast.Dict):
        return {name for value in node.values if value for name in _held(value)}
    return set()


def shared_names(ctx: ModuleContext) -> frozenset[str]:
    """Names whose object the module hands on to another name, a container or a caller, loop
    variables (their items may be held by the iterable), and names `:=` may not bind (a comprehension's variables, a lambda's parameters)."""
    cached = ctx.state.get(_CACHE)
    if cached is not None:
        return cached
    tree = ctx.state.get("ast")
    found: set[str] = set()
    if isinstance(tree, ast.Module):
        for node in nodes(ctx, *_HANDING_ON, *_HOLDING):
            if isinstance(node, _HANDING_ON) and node.value is not None:
                found |= _held(node.value)
            elif isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
                found |= _held(node)
            elif isinstance(node, (ast.For, ast.AsyncFor)):
                # A loop's variable holds the items of an iterable that may hold them too.
                found |= {
                    n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)
                }
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                found |= set(node.names)
            elif isinstance(node, ast.comprehension):
                # Python refuses to rebind a comprehension's own variable with `:=`.
                found |= {
                    n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)
                }
            elif isinstance(node, ast.Lambda):
                found |= {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
    names = frozenset(found)
    ctx.state[_CACHE] = names
    return names


def rebinding_target(call: cst.Call, ctx: ModuleContext) -> cst.Name | None:
    """The name `x` of `x.<shape method>_(...)` when binding it to the result is certain."""
    func = call.func
    if not (
        isinstance(func, cst.Attribute)
        and func.attr.value in SHAPE_METHODS
        and isinstance(func.value, cst.Name)
    ):
        return None
    if not isinstance(ctx.state.get("ast"), ast.Module):
        return None  # what the module shares is unknown
    name = func.value.value
    if name in ("self", "cls"):
        return None
    if name in shared_names(ctx) and not fresh_before(name, ctx, new_object=True):
        # Handed on somewhere; a fresh tensor handed to nothing before the call is the name's
        # alone there, and what is handed on after is the rebound one, as in torch.
        return None
    return func.value


def rebound(target: cst.Name, value: cst.BaseExpression) -> cst.NamedExpr:
    """`(x := value)`."""
    return cst.NamedExpr(
        target=target.deep_clone(),
        value=value,
        lpar=[cst.LeftParen()],
        rpar=[cst.RightParen()],
    )
