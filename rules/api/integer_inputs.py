"""TM421: an integer tensor given to a function torch computes in floats is cast first.

torch computes `torch.log(x)` of an integer tensor in its default float dtype (float32).
MindSpore 2.10's CPU kernels for these functions take floats only: `ops.log` of an int64 tensor
raises 'Select CPU operator[Log] fail! Unsupported data type!'. Where the source shows that the
input is an integer tensor, the conversion casts it first, `x.float()`, which means the same in
both frameworks (for `atan2` and `xlogy`, each of the two inputs that is one). The input is
shown to be one when it is:

- `torch.tensor(...)` / `torch.as_tensor(...)` of integer literals with no `dtype=`;
- `torch.arange` of integer literals, `torch.randint`, `torch.randperm` with no `dtype=`;
- a torch creation call with an integer `dtype=`; `.long()`, `.int()`, `.to(torch.int64)`;
- a name its scope binds only to those.

An input that is a float, or whose dtype the source does not show, keeps the plain call.
"""

from __future__ import annotations

import ast
import bisect

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.rule import API, Example, Rule, RuleMeta, register
from .tensor_names import _own_nodes, dotted, scope_line, scopes

# Functions (and Tensor methods of the same name) torch computes in its default float dtype for
# an integer input, whose MindSpore 2.10 CPU kernel rejects integers (measured on int64 for each).
FLOAT_KERNELS = frozenset(
    """
    acos acosh arccos arccosh arcsin arcsinh arctan arctanh asin asinh atan atanh cos cosh
    deg2rad digamma erf erfc erfinv exp exp2 expm1 i0 lgamma log log10 log1p log2 logit
    rad2deg rsqrt sigmoid sin sinh tan tanh atan2 arctan2 xlogy
    """.split()  # noqa: SIM905 - names as data, one block
)
# Those of them that take two tensors, `input` and `other`: each integer one is cast.
TWO_INPUTS = frozenset({"atan2", "arctan2", "xlogy"})
INTEGER_DTYPES = frozenset(
    f"torch.{name}"
    for name in ["int8", "int16", "int32", "int64", "uint8", "short", "int", "long"]
)
_CREATION = frozenset(
    f"torch.{name}"
    for name in [
        "tensor",
        "as_tensor",
        "zeros",
        "ones",
        "full",
        "empty",
        "arange",
        "randint",
        "randperm",
        "zeros_like",
        "ones_like",
        "full_like",
        "empty_like",
        "randint_like",
    ]
)
_INTEGER_CONSTRUCTORS = frozenset({"torch.LongTensor", "torch.IntTensor"})
_INTEGER_DEFAULT = frozenset({"torch.randint", "torch.randperm"})
_INTEGER_METHODS = frozenset({"long", "int", "short"})
_INTEGER_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)
_SCOPE_NAMES = "tm421.names"
# Words one of which the text making an integer tensor holds (see `integer_tensor`).
_INTEGER_WORDS = (
    *("arange", "randint", "randperm", "LongTensor", "IntTensor", "tensor("),
    *("long", "short", "int8", "int16", "int32", "int64", ".int("),
)
_SCOPES = "tm421.scopes"
# Calls that change torch's default float dtype from float32.
_DEFAULT_SETTERS = ("set_default_dtype", "set_default_tensor_type")

META = RuleMeta(
    id="TM421",
    title="An integer tensor given to a function computed in floats is cast to float32 first",
    what="Rewrites `torch.log(x)` to `ops.log(x.float())` (and `x.log()` to `x.float().log()`) "
    "for the functions torch computes in floats (log, exp, sin, sigmoid, erf, ...) where the "
    "source shows `x` is an integer tensor: a tensor of integer literals, an integer `dtype=`, "
    "`.long()`, or a name bound only to those.",
    why="torch promotes an integer input to its default float dtype (float32); MindSpore 2.10's "
    "CPU kernels of these functions take floats only ('Select CPU operator[Log] fail! "
    "Unsupported data type!').",
    use_instead="Cast integer tensors before these functions: `ops.log(x.float())`.",
    examples=(
        Example(
            before="import torch\n\nx = torch.tensor([4, 10, 7])\ny = torch.log(x)\n"
            "z = x.exp()\nw = torch.log(torch.rand(3))\n",
            after="import mindspore\nfrom mindspore import ops\n\nx = mindspore.tensor([4, 10, 7])"
            "\ny = ops.log(x.float())\nz = x.float().exp()\nw = ops.log(ops.rand(3))\n",
        ),
    ),
    severity="note",
    family="api",
)


def _integer_data(node: ast.AST) -> bool:
    """Integer literals, in (nested) lists or tuples, at least one of them."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _integer_data(node.operand)
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    if isinstance(node, (ast.List, ast.Tuple)):
        return bool(node.elts) and all(_integer_data(e) for e in node.elts)
    return False


def integer_tensor(node: ast.AST, qualify, names: frozenset[str]) -> bool:
    """Whether the source shows ``node`` is an integer torch tensor."""
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, ast.BinOp) and isinstance(node.op, _INTEGER_OPERATORS):
        # an integer tensor with another or with an integer literal stays one
        sides = (node.left, node.right)
        return any(integer_tensor(s, qualify, names) for s in sides) and all(
            integer_tensor(s, qualify, names) or _integer_data(s) for s in sides
        )
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return integer_tensor(node.operand, qualify, names)
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute) and not _torch(func, qualify):
        if func.attr in _INTEGER_METHODS and not node.args and not node.keywords:
            return True
        if func.attr == "to" and len(node.args) == 1 and not node.keywords:
            return qualify(dotted(node.args[0]) or "") in INTEGER_DTYPES
        return False
    name = qualify(dotted(func) or "")
    if name in _INTEGER_CONSTRUCTORS:
        return True
    if name not in _CREATION:
        return False
    dtype = next((k.value for k in node.keywords if k.arg == "dtype"), None)
    if dtype is not None:
        return qualify(dotted(dtype) or "") in INTEGER_DTYPES
    if any(k.arg is None for k in node.keywords) or any(
        isinstance(a, ast.Starred) for a in node.args
    ):
        return False
    if name in _INTEGER_DEFAULT:
        return True
    if name == "torch.arange":
        return bool(node.args) and all(_integer_data(a) for a in node.args)
    if name in ("torch.tensor", "torch.as_tensor"):
        data = node.args[0] if node.args else None
        data = next((k.value for k in node.keywords if k.arg == "data"), data)
        return data is not None and _integer_data(data)
    return False


def _torch(func: ast.Attribute, qualify) -> bool:
    return qualify(dotted(func) or "").startswith("torch.")


def integer_names(scope: ast.AST, qualify) -> frozenset[str]:
    """The names ``scope`` binds only to integer tensors (never a parameter, loop or augmented
    target, never declared global)."""
    bindings: dict[str, list[ast.AST | None]] = {}
    for node in _own_nodes(scope):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                _bind(target, node.value, bindings)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr)):
            _bind(node.target, getattr(node, "value", None), bindings)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            _bind(node.target, None, bindings)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            _bind(node.optional_vars, None, bindings)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                bindings.setdefault(name, []).append(None)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bindings.setdefault(node.name, []).append(None)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bindings.setdefault(alias.asname or alias.name, []).append(None)
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        arguments = scope.args
        for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
            bindings.setdefault(arg.arg, []).append(None)
    found: frozenset[str] = frozenset()
    while True:
        now = frozenset(
            name
            for name, values in bindings.items()
            if all(v is not None and integer_tensor(v, qualify, found) for v in values)
        )
        if now == found:
            return found
        found = now


def _bind(target: ast.AST, value: ast.AST | None, bindings) -> None:
    if isinstance(target, ast.Name):
        bindings.setdefault(target.id, []).append(value)
    elif isinstance(target, (ast.Tuple, ast.List, ast.Starred)):
        for element in ast.walk(target):
            if isinstance(element, ast.Name):
                bindings.setdefault(element.id, []).append(None)


@register
class IntegerInputRule(Rule):
    meta = META
    stage = API
    order = 55
    triggers = tuple(f".{name}(" for name in sorted(FLOAT_KERNELS))
    # Reads calls in marked statements; the names of their scope from the ast tree.
    unmarked_words = ()

    def leave_Call(self, original: cst.Call, updated: cst.Call, ctx: ModuleContext):
        func = original.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in FLOAT_KERNELS:
            return updated
        name = func.attr.value
        qualified = ctx.qualname(func)
        if qualified is not None and qualified != "torch." + name:
            return updated
        method = qualified is None
        if method and ctx.on_imported(func):
            return updated
        # torch's parameters holding tensors, in order; a method's receiver is the first.
        params = ("input", "other") if name in TWO_INPUTS else ("input",)
        args = list(updated.args)
        changed = False
        for index in _positions(original, params[1:] if method else params):
            if self._integer(original.args[index].value, ctx):
                args[index] = args[index].with_changes(value=_float(args[index].value))
                changed = True
        result = updated.with_changes(args=args)
        if method and self._integer(func.value, ctx):
            result = result.with_changes(
                func=updated.func.with_changes(value=_float(updated.func.value))
            )
            changed = True
        if not changed:
            return updated
        ctx.applied.add(META.id)
        return result

    def _integer(self, value: cst.BaseExpression, ctx: ModuleContext) -> bool:
        if any(name in ctx.source for name in _DEFAULT_SETTERS):
            return False  # torch's default float dtype may not be float32
        code = cst.Module([]).code_for_node(value)
        try:
            node = ast.parse(f"({code})", mode="eval").body
        except SyntaxError:
            return False
        names = (
            self._names(ctx)
            if any(isinstance(n, ast.Name) for n in ast.walk(node))
            else frozenset()
        )
        return integer_tensor(node, lambda name: _qualify(name, ctx), names)

    def _names(self, ctx: ModuleContext) -> frozenset[str]:
        line, end = 0, None
        for statement in reversed(ctx.stack):
            if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                info = ctx.statements.get(id(statement))
                if info is None or isinstance(statement, cst.ClassDef):
                    return frozenset()
                line, end = info.line, info.end_line
                break
        if not self._makes_integers(ctx, line, end):
            return frozenset()
        # Worked out only for the scopes that call one of the functions with a name in it.
        found: dict[int, frozenset[str]] = ctx.state.setdefault(_SCOPE_NAMES, {})
        if line not in found:
            by_line = ctx.state.get(_SCOPES)
            if by_line is None:
                tree = ctx.state.get("ast")
                by_line = ctx.state[_SCOPES] = (
                    {scope_line(scope): scope for scope in scopes(tree)}
                    if isinstance(tree, ast.Module)
                    else {}
                )
            scope = by_line.get(line)
            found[line] = (
                integer_names(scope, lambda name: _qualify(name, ctx))
                if scope is not None
                else frozenset()
            )
        return found[line]

    @staticmethod
    def _makes_integers(ctx: ModuleContext, line: int, end: int | None) -> bool:
        """Whether the scope's text (lines ``line`` to ``end``, the module for None) names
        anything that makes an integer tensor: no name of it is bound to one otherwise."""
        for word in _INTEGER_WORDS:
            lines = ctx.lines_with(word)
            if lines is None:
                return True
            i = bisect.bisect_left(lines, line)
            if i < len(lines) and (end is None or lines[i] <= end):
                return True
        return False


def _positions(call: cst.Call, params: tuple[str, ...]) -> list[int]:
    """Where the call passes each of ``params`` (by position, then by keyword); none when an
    argument is spread."""
    if any(a.star for a in call.args):
        return []
    positional = [i for i, a in enumerate(call.args) if a.keyword is None]
    found = []
    for number, param in enumerate(params):
        if number < len(positional):
            found.append(positional[number])
            continue
        found.extend(
            i
            for i, a in enumerate(call.args)
            if a.keyword is not None and a.keyword.value == param
        )
    return found


def _float(value: cst.BaseExpression) -> cst.Call:
    if isinstance(
        value, (cst.BinaryOperation, cst.UnaryOperation, cst.BooleanOperation)
    ):
        value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.Call(cst.Attribute(value, cst.Name("float")))


def _qualify(name: str, ctx: ModuleContext) -> str:
    head, _, rest = name.partition(".")
    target = ctx.aliases.get(head)
    if target is None:
        return ""
    return f"{target}.{rest}" if rest else target
