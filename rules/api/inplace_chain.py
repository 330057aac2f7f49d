"""In-place method chains whose receiver is not a name the rule can assign into.

Two statement shapes are certain enough to convert:

- `t[i].mul_(a).add_(b, alpha=c)` as a statement: every link updates the item `t[i]`, and only the
  last value is read (by nothing but the item). The inner links become their out-of-place forms
  and the outermost link stores the result back (`ms_aux.assign_item(t, i, t[i].mul(a).add(...))`).
- `x = x.to(dtype).sub_(mean).div_(std)`: the chain starts at `x` (through conversions such as
  `.to()`, which return `x` itself when nothing changes) and its result rebinds `x`, so `x` holds
  the same value either way. What torch also does is change the tensor `x` held before, when
  `.to()` returned it. That is invisible when nothing else holds that tensor: this module follows
  `x` back through the function to where it got it. A fresh value (`x = a * b`) is certain; a
  value a for loop or a call gave may still be held by its producer, which is said in a warning;
  a parameter, or a tensor passed on before the update, keeps the finding.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.engine import visit
from .receivers import FRESH_METHODS, fresh_temporary

# Methods that may return their own receiver (or a tensor sharing its storage) unchanged.
ALIAS_LINKS = frozenset(
    {"to", "type", "float", "double", "half", "contiguous", "detach", "cpu", "cuda"}
)
# How a rebound chain's old tensor came to its name.
FRESH = "fresh"
PRODUCED = "produced"
_REFUSED = "refused"


def _method(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        return node.func.attr.value
    return None


def _chain(
    top: cst.BaseExpression, in_place: Callable[[str], bool], aliases: bool
) -> tuple[list[cst.Call], cst.BaseExpression]:
    """The method calls from ``top`` down to the first receiver that is not an in-place link
    (nor, with ``aliases``, a conversion that may return its receiver), and that receiver."""
    links: list[cst.Call] = []
    node = top
    while True:
        name = _method(node)
        if name is None or not (in_place(name) or (aliases and name in ALIAS_LINKS)):
            return links, node
        links.append(node)  # type: ignore[arg-type]
        node = node.func.value  # type: ignore[attr-defined]


def _statement_value(
    ctx: ModuleContext,
) -> tuple[cst.BaseSmallStatement, cst.BaseExpression] | None:
    statement = ctx.stack[-1] if ctx.stack else None
    if not (
        isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
    ):
        return None
    small = statement.body[0]
    if isinstance(small, cst.Expr):
        return small, small.value
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        return small, small.value
    return None


def item_chain(
    original: cst.Call, ctx: ModuleContext, in_place: Callable[[str], bool]
) -> tuple[int, int] | None:
    """For an in-place link of a statement-level chain on an item (`t[i].mul_(a).add_(b)`): how
    many links lie above ``original`` (0 for the outermost), and how many the chain has. None
    for any other call."""
    found = _statement_value(ctx)
    if found is None or not isinstance(found[0], cst.Expr):
        return None
    links, bottom = _chain(found[1], in_place, aliases=False)
    if len(links) < 2 or not any(link is original for link in links):
        return None
    if not (isinstance(bottom, cst.Subscript) and ctx.dotted(bottom.value) is not None):
        return None
    above = next(i for i, link in enumerate(links) if link is original)
    return above, len(links)


def rebound_chain(
    original: cst.Call, ctx: ModuleContext, in_place: Callable[[str], bool]
) -> str | None:
    """For an in-place link of `x = x.<conversions and in-place calls>`: FRESH or PRODUCED (see
    the module's docstring), or None where the update may reach a tensor something else reads."""
    found = _statement_value(ctx)
    if found is None or not isinstance(found[0], cst.Assign):
        return None
    assign, value = found
    target = assign.targets[0].target
    if not isinstance(target, cst.Name):
        return None
    links, bottom = _chain(value, in_place, aliases=True)
    if not any(link is original for link in links):
        return None
    if not (isinstance(bottom, cst.Name) and bottom.value == target.value):
        return None
    return _origin(target.value, ctx)


# -- where the name's tensor came from ---------------------------------------------------------
def fresh_before(name: str, ctx: ModuleContext, new_object: bool = False) -> bool:
    """Whether ``name`` holds a fresh temporary at the statement being converted: bound to one
    before it in the function, and handed to nothing else since. With ``new_object``, a view
    that torch's function returns as a new tensor object (`torch.einsum`, `torch.reshape`)
    counts too: what changes the object alone (its shape) reaches nothing else."""
    fresh = _new_object if new_object else fresh_temporary
    return _origin(name, ctx, fresh) == FRESH


# torch functions that return a new tensor object, a view of their input maybe.
_NEW_OBJECTS = frozenset(
    {"einsum", "reshape", "transpose", "permute", "flatten", "movedim", "swapaxes"}
)


def _new_object(value: cst.BaseExpression, ctx: ModuleContext) -> bool:
    if fresh_temporary(value, ctx):
        return True
    if not isinstance(value, cst.Call):
        return False
    module, _, leaf = (ctx.qualname(value.func) or "").rpartition(".")
    return module == "torch" and leaf in _NEW_OBJECTS


def _origin(
    name: str, ctx: ModuleContext, fresh: Callable = fresh_temporary
) -> str | None:
    child = ctx.stack[-1]
    for parent in reversed(ctx.stack[:-1]):
        block = _block_holding(parent, child)
        if block is None:
            return None
        index = next(i for i, s in enumerate(block) if s is child)
        for statement in reversed(block[:index]):
            verdict = _statement_origin(statement, name, ctx, fresh)
            if verdict == _REFUSED:
                return None
            if verdict in (FRESH, PRODUCED):
                return verdict
        if isinstance(parent, cst.For):
            targets = (
                [e.value for e in parent.target.elements]
                if isinstance(parent.target, (cst.Tuple, cst.List))
                else [parent.target]
            )
            if any(isinstance(t, cst.Name) and t.value == name for t in targets):
                return PRODUCED
            return (
                None  # the name comes from before the loop, or from the last iteration
            )
        if isinstance(parent, (cst.With, cst.If)):
            header = parent.items if isinstance(parent, cst.With) else [parent.test]
            if any(_mentions(part, name) for part in header):
                return None
            child = parent
            continue
        return None  # a parameter, a global, or a block the walk does not follow
    return None


def _block_holding(parent: cst.CSTNode, child: cst.CSTNode) -> list | None:
    body = getattr(parent, "body", None)
    if isinstance(body, cst.IndentedBlock) and any(s is child for s in body.body):
        return list(body.body)
    return None


def _statement_origin(
    statement: cst.CSTNode,
    name: str,
    ctx: ModuleContext,
    fresh: Callable = fresh_temporary,
) -> str | None:
    """What a statement before the update says of ``name``'s tensor: FRESH or PRODUCED where it
    binds it, _REFUSED where it may hand the tensor to something else, None where it only reads
    it, does not name it, or rebinds it to a conversion of itself (`x = x.to(device)`, the same
    tensor maybe: the walk goes on before it)."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return _REFUSED if _mentions(statement, name) else None
    for small in reversed(statement.body):
        if (
            isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
            and small.targets[0].target.value == name
        ):
            links, bottom = _chain(small.value, lambda _: False, aliases=True)
            if links and isinstance(bottom, cst.Name) and bottom.value == name:
                if any(_passes_on(a.value, name) for link in links for a in link.args):
                    return _REFUSED
                continue  # `x = x.to(device)`: the same tensor, maybe
            if _passes_on(small.value, name) or isinstance(
                bottom, (cst.Name, cst.Attribute, cst.Subscript)
            ):
                return (
                    _REFUSED  # `x = y`, `x = self.buf.float()`: another name holds it
                )
            return FRESH if fresh(small.value, ctx) else PRODUCED
        if _binds(small, name) or _passes_on(small, name):
            return _REFUSED
    return None


class _Find(cst.CSTVisitor):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.found = False

    def visit_Name(self, n: cst.Name) -> None:
        if n.value == self.name:
            self.found = True


def _mentions(node: cst.CSTNode, name: str) -> bool:
    find = _Find(name)
    visit(node, find)
    return find.found


def _binds(small: cst.CSTNode, name: str) -> bool:
    targets: list[cst.CSTNode] = []
    if isinstance(small, cst.Assign):
        targets = [t.target for t in small.targets]
    elif isinstance(small, (cst.AugAssign, cst.AnnAssign)):
        targets = [small.target]
    return any(_mentions(t, name) for t in targets)


# Uses of a name that only read its tensor: an attribute that is not called (`x.shape`), a method
# that returns a new tensor, an operand of arithmetic or a comparison.
def _passes_on(node: cst.CSTNode, name: str) -> bool:
    """Whether ``node`` uses ``name`` other than by reading it."""
    # Each use found is a Name of ``name``: a node that holds none uses it in no way.
    if not isinstance(node, cst.Name) and not _mentions(node, name):
        return False
    return _uses(node, name)


def _uses(node: cst.CSTNode, name: str) -> bool:
    if isinstance(node, cst.Name):
        return node.value == name
    if isinstance(node, cst.Attribute):
        if isinstance(node.value, cst.Name):
            return False  # `x.shape`; a call of it is judged by the Call below
        return _uses(node.value, name)
    if isinstance(node, cst.Call):
        func = node.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            if func.value.value == name and func.attr.value not in _READING_METHODS:
                return True
        elif _uses(func, name):
            return True
        return any(_uses(a.value, name) for a in node.args)
    if isinstance(node, cst.ComparisonTarget):
        return not isinstance(node.comparator, cst.Name) and _uses(
            node.comparator, name
        )
    if isinstance(node, (cst.BinaryOperation, cst.Comparison, cst.UnaryOperation)):
        return any(
            _uses(child, name)
            for child in node.children
            if not isinstance(child, cst.Name)
        )
    return any(_uses(child, name) for child in node.children)


# Methods whose result never shares the receiver's storage, or is no tensor.
_READING_METHODS = FRESH_METHODS | frozenset(
    {"size", "dim", "numel", "item", "tolist", "max", "min", "argmax", "argmin"}
)


# -- writes into gradient state ---------------------------------------------------------------
def writes_grad_state(call: cst.Call, ctx: ModuleContext) -> bool:
    """Whether an in-place method ``call`` updates a `.grad` (`p.grad.mul_(c)`, through
    `.detach()`, `ops.stop_gradient(...)` or `.data`) outside a function named `step` (where a
    companion Optimizer has set `.grad` to the gradients it applies)."""
    node = call.func.value  # type: ignore[attr-defined]
    while True:
        if _method(node) == "detach":
            node = node.func.value  # type: ignore[attr-defined]
        elif (
            isinstance(node, cst.Call)
            and ctx.dotted(node.func)
            in ("ops.stop_gradient", "mindspore.ops.stop_gradient")
            and node.args
        ):
            node = node.args[0].value
        elif isinstance(node, cst.Attribute) and node.attr.value == "data":
            node = node.value
        else:
            break
    if not (isinstance(node, cst.Attribute) and node.attr.value == "grad"):
        return False
    functions = [s for s in ctx.stack if isinstance(s, cst.FunctionDef)]
    return not functions or functions[-1].name.value != "step"
