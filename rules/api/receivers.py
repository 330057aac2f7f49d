"""What the TM4xx rule knows about the code around a call: receivers, placement dicts, leftovers."""

from __future__ import annotations

import re

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.engine import visit
from . import METHODS
from .spec import CallTranslation, Refusal

_PLACEMENT_KEYS = frozenset({"device", "dtype"})


def placement_dicts(
    function: cst.FunctionDef, ctx: ModuleContext | None = None
) -> frozenset[str]:
    """Names the function binds, at its top level, to a dict of device/dtype entries only."""
    names = set()
    body = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
    for statement in body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if not (isinstance(small, cst.Assign) and len(small.targets) == 1):
                continue
            target, value = small.targets[0].target, small.value
            if not isinstance(target, cst.Name):
                continue
            if (
                isinstance(value, cst.Dict)
                and value.elements
                and all(
                    isinstance(e, cst.DictElement)
                    and isinstance(e.key, cst.SimpleString)
                    and e.key.evaluated_value in _PLACEMENT_KEYS
                    for e in value.elements
                )
            ) or (
                isinstance(value, cst.Call)
                and isinstance(value.func, cst.Name)
                and value.func.value == "dict"
                and value.args
                and all(
                    a.keyword is not None and a.keyword.value in _PLACEMENT_KEYS
                    for a in value.args
                )
            ):
                names.add(target.value)
    if not names:
        return frozenset()
    # A name rebound anywhere else in the function is not certain.
    if ctx is not None and _bound_once(function, names, ctx):
        return frozenset(names)
    counts = _bindings(function, names)
    return frozenset(name for name in names if counts[name] == 1)


# What may follow a name `_Bindings` counts (`dd = `, `dd += `, `dd[`, `dd.`), across blanks,
# comments, line continuations and closing parentheses: a superset of the counted places.
_COUNTED = (
    r"(?:\s|\\\r?\n|#[^\n]*|\))*(?:\.|\[|=(?!=)|[-+*/%&|^@<>]=|//=|\*\*=|>>=|<<=)"
)
_LINES = "receivers.lines"


def _bound_once(function: cst.FunctionDef, names: set[str], ctx: ModuleContext) -> bool:
    """Whether the text of ``function``, still as the parse made it, shows each of ``names``
    at most once where `_Bindings` would count it: only at its dict binding, which the walk
    would find alone."""
    if id(function) not in ctx.parsed or function.decorators:
        return False
    info = ctx.statements.get(id(function))
    lines = ctx.state.get(_LINES)
    if lines is None:
        source = ctx.source
        # ``ast`` numbers lines by these newlines only.
        lines = ctx.state[_LINES] = (
            source.split("\n") if "\r" not in source.replace("\r\n", "") else []
        )
    if info is None or not lines:
        return False
    first = lines[info.line - 1]  # type: ignore[index]
    if "def" not in first or function.name.value not in first:
        return False
    text = "\n".join(lines[info.line - 1 : info.end_line])  # type: ignore[index]
    return all(
        len(re.findall(r"(?<!\w)" + re.escape(name) + _COUNTED, text)) <= 1
        for name in names
    )


class _Bindings(cst.CSTVisitor):
    def __init__(self, names: set[str]) -> None:
        self.counts = dict.fromkeys(names, 0)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if isinstance(node.target, cst.Name) and node.target.value in self.counts:
            self.counts[node.target.value] += 1

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name) and node.target.value in self.counts:
            self.counts[node.target.value] += 2

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if isinstance(node.value, cst.Name) and node.value.value in self.counts:
            self.counts[node.value.value] += (
                2  # dd['x'] = ... or a read; either way keep it simple
            )

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if isinstance(node.value, cst.Name) and node.value.value in self.counts:
            self.counts[node.value.value] += 2  # dd.update(...)


def _bindings(function: cst.FunctionDef, names: set[str]) -> dict[str, int]:
    """How often each of ``names`` is bound or used as a container in the function."""
    visitor = _Bindings(names)
    visit(function, visitor)
    return visitor.counts


# Out-of-place torch operations always return a new tensor (views, `.to()`, `.float()`, `.contiguous()`
# and `.detach()` may return storage shared with their input, so they are not listed).
FRESH_METHODS = frozenset(
    [
        "abs",
        "add",
        "addcdiv",
        "addcmul",
        "bmm",
        "ceil",
        "clamp",
        "clip",
        "clone",
        "div",
        "exp",
        "flip",
        "exp2",
        "floor",
        "lerp",
        "log",
        "log1p",
        "log2",
        "matmul",
        "mean",
        "mm",
        "mul",
        "neg",
        "norm",
        "pow",
        "prod",
        "reciprocal",
        "round",
        "rsqrt",
        "sigmoid",
        "sign",
        "sin",
        "cos",
        "softmax",
        "sqrt",
        "square",
        "std",
        "sub",
        "sum",
        "tanh",
        "var",
        "zeros",
        "ones",
        "full",
        "empty",
        "new_zeros",
        "new_ones",
        "new_full",
        "new_empty",
        "zeros_like",
        "ones_like",
        "empty_like",
        "full_like",
        "rand",
        "randn",
        "tensor",
        "cat",
        "stack",
        "amax",
        "amin",
    ]
)


def fresh_temporary(receiver: cst.BaseExpression, ctx: ModuleContext) -> bool:
    """Whether the receiver is a new temporary: arithmetic, or an out-of-place torch operation."""
    if isinstance(receiver, (cst.BinaryOperation, cst.UnaryOperation)):
        return True
    if not isinstance(receiver, cst.Call):
        return False
    qualified = ctx.qualname(receiver.func)
    if qualified is not None:
        module, _, leaf = qualified.rpartition(".")
        if module == "torch.nn.functional":
            return "dropout" not in leaf  # dropout without training returns its input
        return module == "torch" and leaf in FRESH_METHODS
    if not isinstance(receiver.func, cst.Attribute):
        return False
    method = receiver.func.attr.value
    if method in FRESH_METHODS:
        return True
    # An in-place method returns its own receiver: `x.div(d).sqrt_()` is as fresh as `x.div(d)`,
    # and `torch.empty(n).uniform_(a, b)` as `torch.empty(n)`.
    return (
        method.endswith("_")
        and (method[:-1] in FRESH_METHODS or method in METHODS or method in _FILLS)
        and fresh_temporary(receiver.func.value, ctx)
    )


# In-place fills, which return their receiver (`x.new_empty(shape).bernoulli_(p)`), whether or
# not the tables convert them.
_FILLS = frozenset(
    "bernoulli_ uniform_ normal_ random_ exponential_ geometric_ cauchy_ log_normal_ "
    "fill_ zero_".split()
)


# Calls that hand back a tensor something else holds: builtins that return an argument or an
# attribute (`getattr`, `next`, `max`), getters of a module's own tensors, a sparse tensor's parts.
_HOLDER_CALLS = frozenset({"getattr", "next", "max", "min", "vars", "iter", "super"})
_GETTER_PREFIXES = ("get_", "_get_")
_PARTS = frozenset({"_values", "_indices"})


def _program_result(
    receiver: cst.BaseExpression, ctx: ModuleContext, tensor_methods: frozenset[str]
) -> bool:
    """Whether ``receiver`` is the result of a call of the program's own, or an in-place method
    on one (`f(x).clamp_(0)` returns `f(x)`'s result)."""
    if not isinstance(receiver, cst.Call) or ctx.qualname(receiver.func) is not None:
        return False
    func = receiver.func
    if isinstance(func, cst.Name):
        name = func.value
        if name in _HOLDER_CALLS:
            return False
    elif isinstance(func, cst.Attribute):
        name = func.attr.value
        if name.endswith("_") and name[:-1] in tensor_methods:
            return _program_result(func.value, ctx, tensor_methods)
        if name in tensor_methods or name.endswith("_") or name in _PARTS:
            return False
    else:
        return False
    if name.startswith(_GETTER_PREFIXES):
        return False
    return not any(
        a.keyword is not None
        and a.keyword.value == "inplace"
        and isinstance(a.value, cst.Name)
        and a.value.value == "True"
        for a in receiver.args
    )


def call_result(
    receiver: cst.BaseExpression,
    original: cst.Call,
    ctx: ModuleContext,
    tensor_methods: frozenset[str],
) -> bool:
    """Whether an in-place call's receiver is the result of a call of the program's own (a layer, a
    function held in a name or an attribute: `self.act_fn(x).mul_(g)`) and the in-place call's
    value is what the statement uses. That result exists for this expression only, so updating it
    in place is computing the new value. Not so for Tensor methods (views and in-place methods
    return storage of their receiver), getters, builtins that return what they were given, a call
    passing `inplace=True` (it returns its input), and a statement that is the in-place call alone
    (its only effect would be on what the result shares)."""
    if not _program_result(receiver, ctx, tensor_methods):
        return False
    statement = ctx.stack[-1] if ctx.stack else None
    return not (
        isinstance(statement, cst.SimpleStatementLine)
        and any(
            isinstance(small, cst.Expr) and small.value is original
            for small in statement.body
        )
    )


def assign_root(receiver: cst.BaseExpression, ctx: ModuleContext):
    """The tensor an in-place call updates, when naming it again is safe: `x`, `self.w`, or the
    `x` of an in-place call already rewritten (`ops.assign(x, ...)` and
    `ms_aux.assign_view(x, ...)` return `x`), or an entry of
    a dict read with a string (`state['step']`): reading it again gives the same tensor. An item
    read with a number or a name (`x[i]`) may be a view of a tensor, which MindSpore copies."""
    if _named(receiver, ctx):
        return receiver
    if (
        isinstance(receiver, cst.Call)
        and ctx.dotted(receiver.func)
        in ("mindspore.ops.assign", "ops.assign", "ms_aux.assign_view")
        and receiver.args
        and _named(receiver.args[0].value, ctx)
    ):
        return receiver.args[0].value
    return None


def _named(node: cst.BaseExpression, ctx: ModuleContext) -> bool:
    """`x`, `self.w`, or an entry of one read with a string (`state['exp_avg']`)."""
    if ctx.dotted(node) is not None:
        return True
    if not isinstance(node, cst.Subscript) or not _named(node.value, ctx):
        return False
    return len(node.slice) == 1 and (
        isinstance(node.slice[0].slice, cst.Index)
        and isinstance(node.slice[0].slice.value, cst.SimpleString)
    )


def refusal_is_arity(refusal: Refusal) -> bool:
    return not refusal.argument and "positional arguments" in refusal.reason


class _Calls(cst.CSTVisitor):
    def __init__(self, ctx: ModuleContext) -> None:
        self.ctx = ctx
        self.names: set[str] = set()

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.ctx.qualname(node.func)
        if qualified is not None:
            self.names.add(qualified)
        elif isinstance(node.func, cst.Attribute):
            self.names.add("." + node.func.attr.value)

    # Torch classes still passed as values (`act_layer=nn.GELU`).
    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._value(node.value)

    def visit_Param(self, node: cst.Param) -> None:
        if node.default is not None:
            self._value(node.default)

    def _value(self, node: cst.BaseExpression) -> None:
        qualified = self.ctx.qualname(node)
        if qualified is not None:
            self.names.add(qualified)


def remaining_calls(node: cst.CSTNode, ctx: ModuleContext) -> set[str]:
    """Torch callees (qualified), method names (`.name`) still called and torch names still passed
    as values in a statement."""
    if isinstance(node, cst.BaseCompoundStatement):
        # Only the header: the body's statements carry their own findings.
        node = node.with_changes(body=cst.IndentedBlock([]))
    visitor = _Calls(ctx)
    visit(node, visitor)
    return visitor.names


def unchanged(translation: CallTranslation, args: list, kwargs: dict) -> bool:
    return (
        len(translation.args) == len(args)
        and all(a is b for a, b in zip(translation.args, args))
        and list(translation.kwargs) == list(kwargs)
        and all(translation.kwargs[k] is kwargs[k] for k in kwargs)
    )


def _pure(node: cst.BaseExpression | None) -> bool:
    """Whether ``node`` gives the same value when evaluated again: names, constants, attributes,
    subscripts and arithmetic on them (None: an absent slice bound)."""
    if node is None or isinstance(
        node, (cst.Name, cst.Integer, cst.Float, cst.SimpleString)
    ):
        return True
    if isinstance(node, cst.Attribute):
        return _pure(node.value)
    if isinstance(node, cst.BinaryOperation):
        return _pure(node.left) and _pure(node.right)
    if isinstance(node, cst.UnaryOperation):
        return _pure(node.expression)
    if isinstance(node, cst.Subscript):  # `x.shape[0]`
        return _pure(node.value) and all(
            isinstance(e.slice, cst.Index) and _pure(e.slice.value) for e in node.slice
        )
    return False


def stored_item(receiver: cst.BaseExpression, original: cst.Call, ctx: ModuleContext):
    """(base, index) for an in-place call on `base[index]` that stands alone as a statement, when
    both can be named again: the index as a value (`(slice(None), slice(None, n))` for `[:, :n]`),
    to store the new part back. None otherwise."""
    if not (
        isinstance(receiver, cst.Subscript) and ctx.dotted(receiver.value) is not None
    ):
        return None
    statement = ctx.stack[-1] if ctx.stack else None
    if not (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and statement.body[0].value is original
    ):
        return None
    return item_parts(receiver, ctx)


def item_parts(receiver: cst.BaseExpression, ctx: ModuleContext):
    """(base, index) of `base[index]` when both can be named again, the index as a value
    (`(slice(None), slice(None, n))` for `[:, :n]`); None otherwise."""
    if not (
        isinstance(receiver, cst.Subscript) and ctx.dotted(receiver.value) is not None
    ):
        return None
    parts: list[cst.BaseExpression] = []
    for element in receiver.slice:
        piece = element.slice
        if isinstance(piece, cst.Index) and piece.star is None and _pure(piece.value):
            parts.append(piece.value.deep_clone())
        elif isinstance(piece, cst.Slice) and all(
            _pure(p) for p in (piece.lower, piece.upper, piece.step)
        ):
            # `slice(stop)`, `slice(start, stop)` or `slice(start, stop, step)`
            bounds = [piece.lower, piece.upper, piece.step]
            if piece.step is None:
                bounds = [piece.upper] if piece.lower is None else bounds[:2]
            parts.append(
                cst.Call(
                    cst.Name("slice"),
                    [
                        cst.Arg(b.deep_clone() if b is not None else cst.Name("None"))
                        for b in bounds
                    ],
                )
            )
        else:
            return None
    index = parts[0] if len(parts) == 1 else cst.Tuple([cst.Element(p) for p in parts])
    return receiver.value.deep_clone(), index


def out_is_input(args, kwargs, call: cst.Call, ctx: ModuleContext):
    """The name ``x`` of ``torch.op(x, ..., out=x)`` standing alone as a statement, else None."""
    out = kwargs.get("out")
    if out is None or not args or not isinstance(out.value, cst.Name):
        return None
    first = args[0].value
    if not (isinstance(first, cst.Name) and first.value == out.value.value):
        return None
    statement = ctx.stack[-1] if ctx.stack else None
    if not (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
    ):
        return None
    return out.value
