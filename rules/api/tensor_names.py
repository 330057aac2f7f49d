"""Which expressions and local names of the original source are certainly tensors.

Read from the original ``ast`` tree, per function, before any rule has rewritten it:

- a call of a torch function (`torch.mean(x)`, `F.nll_loss(...)`) or of a Tensor-only method
  (`x.sum(dim=1)`, `out.argmax()`), and arithmetic with one of them;
- a local name whose every binding in its function is such an expression, or a name the function
  calls `.backward()` on (itself or through a loss scaler's `scaler.scale(loss)`), as long as no
  binding makes it a Python number (`loss = loss.item()`,
  `float(...)`, a literal);
- an element of a tensor (`b[0]`, the `w` of `for w in t` or `for i, w in enumerate(t)`);
- the `weight` and `bias` of a name bound only to a torch.nn layer (`fc = nn.Linear(3, 1)`);
- a parameter that every call of its function in the module passes a tensor (see `tensor_flow`).

`optimistic` names are those some binding makes a tensor (and no `.item()`/`float()` rebinding makes
a number): the value may be a tensor or a Python number.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from ...migrator.aliases import statements

# Methods whose results are Python values, not tensors.
PYTHON_RESULTS = frozenset(
    {"item", "tolist", "numpy", "asnumpy", "dim", "ndimension", "numel", "size"}
    | {"nelement", "element_size", "data_ptr", "is_contiguous", "type"}
)
_TORCH_KEYWORDS = frozenset({"dim", "keepdim"})
_PYTHON_BUILTINS = frozenset({"float", "int", "bool", "str", "round", "len", "abs"})

# A function of a name telling whether it gives a tensor.
Classifier = Callable[[str], bool]


class Kinds:
    """What gives a tensor: torch calls by dotted name, Tensor-only methods (by name, whatever the
    receiver), and Tensor methods (by name, on a receiver that is a tensor)."""

    def __init__(
        self,
        torch_call: Classifier,
        only_method: Classifier,
        method: Classifier,
        layer: Classifier = lambda name: False,
    ) -> None:
        self.torch_call = torch_call
        self.only_method = only_method
        self.method = method
        self.layer = layer


# A binding known to hold a tensor (a parameter every caller passes one to).
TENSOR = ast.Name(id="<tensor>")
# Parameters for layers' tensors, written as dotted names.
_LAYER_TENSORS = ("weight", "bias")


def scopes(tree: ast.Module) -> list[ast.AST]:
    """The module and every function in it."""
    return [tree] + [
        node
        for node in statements(tree)  # ast.walk's order, expressions not entered
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]


def scope_line(node: ast.AST) -> int:
    """The line a scope is known by: its first decorator's or its `def` line; 0 for the module."""
    if isinstance(node, ast.Module):
        return 0
    lines = [node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]
    return min(lines)


_NESTED = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda})
_AST = ast.AST


def _push_children(node: ast.AST, stack: list) -> None:
    """``stack.extend(ast.iter_child_nodes(node))``, without the generators."""
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, _AST):
            stack.append(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, _AST):
                    stack.append(item)


def _own_nodes(scope: ast.AST) -> list[ast.AST]:
    """The nodes of a scope, not of the functions and classes nested in it (depth first, the
    last child first)."""
    out: list[ast.AST] = []
    stack: list[ast.AST] = []
    _push_children(scope, stack)
    while stack:
        node = stack.pop()
        out.append(node)
        if node.__class__ not in _NESTED:
            _push_children(node, stack)
    return out


def tensor_names(
    scope: ast.AST,
    kinds: Kinds,
    tensor_parameters: frozenset[str] = frozenset(),
    optimistic: bool = False,
    own: list[ast.AST] | None = None,
) -> frozenset[str]:
    """The names of ``scope`` that are tensors (``tensor_parameters``: its parameters known to be); with
    ``optimistic``, those that may be. ``own``: ``_own_nodes(scope)``, where the caller has it."""
    bindings: dict[str, list[ast.AST | None]] = {}
    backward: set[str] = set()
    for node in _own_nodes(scope) if own is None else own:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                _bind(target, node.value, bindings)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            _bind(node.target, getattr(node, "value", None), bindings)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            _bind_loop(node.target, node.iter, bindings)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            _bind(node.optional_vars, None, bindings)
        elif isinstance(node, ast.NamedExpr):
            _bind(node.target, node.value, bindings)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                bindings.setdefault(name, []).append(ast.Constant(0))  # never certain
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "backward"
        ):
            receiver = node.func.value
            if (
                isinstance(receiver, ast.Call)
                and isinstance(receiver.func, ast.Attribute)
                and receiver.func.attr == "scale"
                and len(receiver.args) == 1
            ):
                receiver = receiver.args[
                    0
                ]  # a loss scaler's `scaler.scale(loss).backward()`
            if isinstance(receiver, ast.Name):
                backward.add(receiver.id)
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        arguments = scope.args
        for arg in (
            *arguments.posonlyargs,
            *arguments.args,
            *arguments.kwonlyargs,
            arguments.vararg,
            arguments.kwarg,
        ):
            if arg is not None:
                value = TENSOR if arg.arg in tensor_parameters else None
                bindings.setdefault(arg.arg, []).append(value)
    layers = {
        f"{name}.{attribute}"
        for name, values in bindings.items()
        if all(_is_layer(v, kinds) for v in values)
        for attribute in _LAYER_TENSORS
    }
    certain: frozenset[str] = frozenset(layers)
    while True:
        found = set(layers)
        for name, values in bindings.items():
            results = [_kind(v, kinds, certain) for v in values]
            if optimistic:
                if "tensor" in results and not any(
                    _made_number(v, name) for v in values
                ):
                    found.add(name)
                continue
            if "python" in results:
                continue
            if all(k == "tensor" for k in results) or (
                name in backward and "unknown" in results
            ):
                found.add(name)
        if found == certain:
            return certain
        certain = frozenset(found)


def _is_layer(value: ast.AST | None, kinds: Kinds) -> bool:
    if not isinstance(value, ast.Call):
        return False
    name = dotted(value.func)
    return name is not None and kinds.layer(name)


def _made_number(value: ast.AST | None, name: str) -> bool:
    """`name = name.item()`, `name = float(name)`: the code turned the value into a number."""
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    if isinstance(func, ast.Attribute) and func.attr in PYTHON_RESULTS:
        return True
    return isinstance(func, ast.Name) and func.id in _PYTHON_BUILTINS


def _bind_loop(target: ast.AST, iterated: ast.AST, bindings) -> None:
    """`for w in t`: w is an element of t; `for i, w in enumerate(t)`: i a number, w an element."""
    element = ast.Subscript(value=iterated, slice=ast.Constant(0), ctx=ast.Load())
    if isinstance(target, ast.Name):
        bindings.setdefault(target.id, []).append(element)
        return
    if (
        isinstance(target, ast.Tuple)
        and len(target.elts) == 2
        and isinstance(iterated, ast.Call)
        and isinstance(iterated.func, ast.Name)
        and iterated.func.id == "enumerate"
        and len(iterated.args) == 1
        and not iterated.keywords
    ):
        index, item = target.elts
        _bind(index, ast.Constant(0), bindings)
        _bind_loop(item, iterated.args[0], bindings)
        return
    _bind(target, None, bindings)


def _bind(target: ast.AST, value: ast.AST | None, bindings) -> None:
    if isinstance(target, ast.Name):
        bindings.setdefault(target.id, []).append(value)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            _bind(element, None, bindings)
    elif isinstance(target, ast.Starred):
        _bind(target.value, None, bindings)


def _kind(value: ast.AST | None, kinds: Kinds, names: frozenset[str]) -> str:
    """'tensor', 'python' (a Python value for certain) or 'unknown'."""
    if value is None:
        return "unknown"
    if value is TENSOR or is_tensor(value, kinds, names):
        return "tensor"
    if isinstance(value, (ast.Constant, ast.JoinedStr, ast.List, ast.Dict, ast.Tuple)):
        return "python"
    if isinstance(value, ast.Call):
        func = value.func
        if isinstance(func, ast.Attribute) and func.attr in PYTHON_RESULTS:
            return "python"
        if isinstance(func, ast.Name) and func.id in _PYTHON_BUILTINS:
            return "python"
    return "unknown"


def dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def is_tensor(node: ast.AST, kinds: Kinds, names: frozenset[str]) -> bool:
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, ast.Attribute):
        return dotted(node) in names
    if isinstance(node, ast.Subscript):
        return is_tensor(
            node.value, kinds, names
        )  # any element or slice of a tensor is one
    if isinstance(node, ast.BinOp):
        return is_tensor(node.left, kinds, names) or is_tensor(node.right, kinds, names)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return is_tensor(node.operand, kinds, names)
    if not isinstance(node, ast.Call):
        return False
    name = dotted(node.func)
    if name is not None and kinds.torch_call(name):
        return True
    func = node.func
    if not isinstance(func, ast.Attribute) or func.attr in PYTHON_RESULTS:
        return False
    if kinds.method(func.attr) and any(k.arg in _TORCH_KEYWORDS for k in node.keywords):
        return True  # only torch's methods take `dim=`/`keepdim=`
    return kinds.only_method(func.attr) or (
        kinds.method(func.attr) and is_tensor(func.value, kinds, names)
    )
