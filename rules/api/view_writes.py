"""Where an in-place update writes back into a tensor that may be a view of another.

torch's in-place methods write through a view into the tensor it views (`x = t.reshape(2, 2)`,
`y = t[1:]`, `z = t.T`). MindSpore 2.10's views share storage too, but its `Assign` refuses a view
("Not support view input for inplace op Assign"), and `Tensor.copy_` leaves transposed views and
rows as they were without a word. An item assignment (`x[...] = value`) updates the view itself,
and the viewed tensor only for some views (slices and rows, not reshapes or transposes).

So an update of a name its function (or the module, at module level) binds to a
view-producing expression is written with the companion's `assign_view`, any other with `ops.assign(x, value)`. Where the viewed tensor is itself
held in a name (`v = base.view(2, 3)`, not `x = torch.tensor(...).reshape(2, 2)`), TM947 says that
`base` may not see the update. The names are a fact of the module, read once from its `ast` tree.
"""

from __future__ import annotations

import ast

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.findings import WARNING
from ...migrator.rule import define
from ..common.ast_nodes import nodes
from .inplace_chain import fresh_before
from .inplace_grad import report_grad_assign
from .shape_rebind import rebound

# torch methods and attributes whose result may share the receiver's storage.
VIEW_METHODS = frozenset(
    """
    view view_as reshape reshape_as transpose permute expand expand_as narrow squeeze unsqueeze
    flatten unflatten t diagonal select unfold movedim moveaxis swapaxes swapdims as_strided
    split chunk unbind tensor_split hsplit vsplit dsplit split_with_sizes detach
    """.split()  # noqa: SIM905 - names as data, one block
)
VIEW_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "real", "imag"})
_CACHE = "view_names"

VIEW_UPDATE = define(
    "TM947",
    "In-place update of a view of a named tensor",
    "Reports an in-place method whose tensor the module binds to a view of another named tensor "
    "(`v = base.view(2, 3)` then `v.mul_(2)`): the update is written into `v` with the "
    "companion's `assign_view`.",
    "torch writes through a view into the tensor it views. MindSpore 2.10's Assign refuses views, "
    "and an item assignment into a view reaches the viewed tensor only for slices and rows, not "
    "for reshapes or transposes, so `base` may keep its old values.",
    "If the viewed tensor is read after the update, update it and take the view again: "
    "`base = base * 2` then `v = base.view(2, 3)`.",
    severity=WARNING,
    family="api",
)


def _viewed(value: ast.AST) -> ast.AST | None:
    """The expression whose view `value` may be (`t` of `t.reshape(2, 2)`), or None."""
    if isinstance(value, ast.Subscript) and _slices(value.slice):
        return value.value
    if isinstance(value, ast.Attribute) and value.attr in VIEW_ATTRIBUTES:
        return value.value
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in VIEW_METHODS
    ):
        return value.func.value
    return None


def _slices(index: ast.AST) -> bool:
    """An index with a slice, `...` or `None` (`t[1:]`, `t[:, 0]`): a tensor's view. A bare
    number or key may read a list or a dict (`exp_avgs[i]`, `state['exp_avg']`)."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    return any(
        isinstance(part, ast.Slice)
        or (isinstance(part, ast.Constant) and part.value in (Ellipsis, None))
        for part in parts
    )


def _named_base(base: ast.AST) -> bool:
    """Whether the viewed tensor is reachable after the binding: a name or an attribute of one,
    or a view of such (a call's fresh result is held by nothing else)."""
    while True:
        if isinstance(base, (ast.Name, ast.Attribute)):
            return True
        inner = _viewed(base)
        if inner is None:
            return False
        base = inner


def _targets(target: ast.AST):
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _targets(element)


def _innermost(scopes: list[tuple[int, int]], line: int) -> tuple[int, int]:
    """The innermost function (first and last line) holding `line`; (0, 0) for the module."""
    holding = [scope for scope in scopes if scope[0] <= line <= scope[1]]
    return max(holding) if holding else (0, 0)


def view_names(ctx: ModuleContext) -> dict[tuple[str, tuple[int, int]], bool]:
    """(name, scope) pairs the module binds, somewhere in that function (or at module level),
    to an expression whose value may be a view, each with whether the viewed tensor is held in
    a name too; and the module's function scopes under the key ("", (0, 0))."""
    cached = ctx.state.get(_CACHE)
    if cached is not None:
        return cached
    tree = ctx.state.get("ast")
    found: dict = {}
    if isinstance(tree, ast.Module):
        scopes = [
            (node.lineno, node.end_lineno or node.lineno)
            for node in nodes(ctx, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
        ]
        found[("", (0, 0))] = scopes
        for node in nodes(ctx, ast.Assign):
            base = _viewed(node.value)
            if base is None:
                continue
            scope = _innermost(scopes, node.lineno)
            for target in node.targets:
                for name in _targets(target):
                    key = (name, scope)
                    found[key] = found.get(key, False) or _named_base(base)
    ctx.state[_CACHE] = found
    return found


def write_back(
    root: cst.BaseExpression, value: cst.BaseExpression, ctx: ModuleContext
) -> cst.Call:
    """`ms_aux.assign_view(root, value)` where root may be a view, `(root := value)` where
    root names a fresh tensor nothing else holds, else `ops.assign(root, value)` (with TM963
    where the update can be differentiated: Assign passes no gradient to the value)."""
    if isinstance(root, cst.Name) and fresh_before(root.value, ctx):
        # Nothing else reads the old tensor: binding the name is the update, and the gradient
        # flows through the new value (MindSpore's Assign passes none to it).
        return rebound(root, _in_dtype_of(root, value))
    views = view_names(ctx) if isinstance(root, cst.Name) else {}
    key = ("", (0, 0))
    if views:
        scope = _innermost(views[key], ctx.position()[0])
        key = (root.value, scope)  # type: ignore[attr-defined]
    if key in views:
        if views[key]:
            ctx.report(
                VIEW_UPDATE.id,
                f"`{root.value}` may be a view of another tensor: MindSpore updates "  # type: ignore[attr-defined]
                "the view, and the tensor it views only for slices and rows",
                VIEW_UPDATE.use_instead,
                severity=WARNING,
            )
        return cst.Call(
            ctx.companion("assign_view"), [cst.Arg(root.deep_clone()), cst.Arg(value)]
        )
    report_grad_assign(root, ctx)
    return cst.Call(
        ctx.name("mindspore.ops.assign"), [cst.Arg(root.deep_clone()), cst.Arg(value)]
    )


# Out-of-place forms whose result is a bool tensor: torch's in-place form keeps the tensor's dtype.
_BOOL_RESULTS = frozenset(
    """
    eq ne lt le gt ge greater greater_equal less less_equal not_equal equal logical_and
    logical_or logical_xor logical_not isclose
    """.split()  # noqa: SIM905 - names as data, one block
)


def _in_dtype_of(root: cst.Name, value: cst.BaseExpression) -> cst.BaseExpression:
    """``value.astype(root.dtype)`` where the out-of-place result is a bool tensor, else value."""
    func = value.func if isinstance(value, cst.Call) else None
    name = None
    if isinstance(func, cst.Attribute):
        name = func.attr.value
    elif isinstance(func, cst.Name):
        name = func.value
    if name not in _BOOL_RESULTS:
        return value
    return cst.Call(
        cst.Attribute(value, cst.Name("astype")),
        [cst.Arg(cst.Attribute(root.deep_clone(), cst.Name("dtype")))],
    )
