"""Where an in-place update written with `ops.assign` runs inside a differentiated function.

MindSpore's Assign passes no gradient to the value it writes, and the write changes a tensor the
backward pass may have saved. A fresh local tensor is rebound instead (`(x := value)`, exact);
any other target (a parameter of the function, a global, an attribute) keeps `ops.assign`, and
where the update can be differentiated TM963 says its gradient is wrong.

The update can be differentiated where it runs in the forward of a module class of the file
(`forward` or `construct`), in a function passed to a gradient transform (`torch.func.grad(f)`),
or in a function or method those call by name in the same file (`helper(x)`, `self.act(x)`);
and, in the forward function the training rewrite passes to `value_and_grad`, where it updates
what a call of the program gave (`out = model(x)`, not the data before the model sees it);
not inside a `no_grad`/`inference_mode` block or function, a branch whose test is a false
constant, or initialisation (`__init__`, `reset_parameters`, `init_weights`), and not for the
module's own state (`self.num_batches_tracked.add_(1)`) nor `.data`. The lines are a fact of
the module, read once from its `ast` tree.
"""

from __future__ import annotations

import ast
import builtins

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.findings import WARNING
from ...migrator.rule import Example, define
from ..common.ast_nodes import tree_nodes

GRAD_ASSIGN = define(
    "TM963",
    "In-place update inside a differentiated function",
    "Reports an in-place update (`x.mul_(y)`, `out=x`) written back with `ops.assign` into a "
    "tensor that is not a fresh local one (a parameter of the function, a global, an "
    "attribute), where it runs in a module's forward, a function a gradient is taken of, or "
    "the forward of a training step (on the model's output).",
    "MindSpore's Assign passes no gradient to the value it writes, and the write changes a "
    "tensor the backward pass may have saved, so the gradients of everything before the update "
    "come out wrong, without an error.",
    "Compute the value out of place and bind it: `x = x * y` (or `x = x.mul(y)`) where nothing "
    "else needs to see the update; with an `inplace` flag, take the out-of-place branch.",
    examples=(
        Example(
            before="import torch\nfrom torch import nn\n\n\n"
            "class Scale(nn.Module):\n"
            "    def forward(self, x):\n"
            "        y = x * 2\n"
            "        y.add_(1)\n"
            "        return x.mul_(y)\n",
            after="from mindspore import nn, ops\n\n\n"
            "class Scale(nn.Cell):\n"
            "    def construct(self, x):\n"
            "        y = x * 2\n"
            "        (y := y.add(1))\n"
            "        # torch2ms: TM963 MindSpore's Assign passes no gradient to the value it "
            "writes; inside a differentiated function this in-place update of `x` computes "
            "wrong gradients\n"
            "        return ops.assign(x, x.mul(y))\n",
            findings=("TM963 MindSpore's Assign passes no gradient",),
        ),
    ),
    severity=WARNING,
    family="api",
)
_CACHE = "inplace_grad.lines"
_FORWARDS = frozenset({"forward", "construct"})
_TRANSFORMS = frozenset(
    {
        "grad",
        "grad_and_value",
        "value_and_grad",
        "vjp",
        "jvp",
        "jacrev",
        "jacfwd",
        "vmap",
    }
)
_INIT = frozenset({"__init__", "reset_parameters", "init_weights", "_init_weights"})
_NO_GRAD = frozenset({"no_grad", "inference_mode"})


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    if isinstance(node, ast.Call):
        return _dotted(node.func)
    return ""


def _no_grad(expr: ast.AST) -> bool:
    return _dotted(expr).rpartition(".")[2] in _NO_GRAD


def _initialising(name: str) -> bool:
    return name in _INIT or name.startswith(("init_", "_init_", "reset_"))


def _module_classes(tree: ast.Module, imported: frozenset[str]) -> set[str]:
    """Classes of the module whose base is a torch module class (`nn.Module`, `nn.Sequential`),
    a module class imported from the converted tree, or another such class of the file."""
    found: set[str] = set()
    classes = [node for node in tree.body if isinstance(node, ast.ClassDef)]
    changed = True
    while changed:
        changed = False
        for node in classes:
            if node.name in found:
                continue
            for base in map(_dotted, node.bases):
                if (
                    base.startswith(("nn.", "torch.nn."))
                    or base in ("Module", "Sequential")
                    or base in imported
                    or base in found
                ):
                    found.add(node.name)
                    changed = True
                    break
    return found


def _functions(tree: ast.Module) -> dict[tuple[str, str], ast.FunctionDef]:
    """Module-level functions under ("", name), methods under (class, name)."""
    table: dict[tuple[str, str], ast.FunctionDef] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            table[("", node.name)] = node  # type: ignore[assignment]
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    table[(node.name, item.name)] = item  # type: ignore[assignment]
    return table


def _callees(
    owner: str, function: ast.AST, table: dict[tuple[str, str], ast.FunctionDef]
) -> set[tuple[str, str]]:
    """The functions of the file ``function`` calls by name, and the methods of its class it
    calls on `self`."""
    found = set()
    for node in ast.walk(function):
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Name) and ("", node.func.id) in table:
            found.add(("", node.func.id))
        elif (
            isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "self"
            and (owner, node.func.attr) in table
        ):
            found.add((owner, node.func.attr))
    return found


def _lines(tree: ast.Module, imported: frozenset[str]) -> tuple[list, list]:
    """The (first, last) lines of the functions an update can be differentiated in, and the
    (first, last) lines inside them that run without gradient."""
    table = _functions(tree)
    classes = _module_classes(tree, imported)
    reached = [
        (cls, name) for cls, name in table if cls in classes and name in _FORWARDS
    ]
    for node in tree_nodes(tree, ast.Call):
        if (
            _dotted(node.func).rpartition(".")[2] in _TRANSFORMS
            and node.args
            and isinstance(node.args[0], ast.Name)
            and ("", node.args[0].id) in table
        ):
            reached.append(("", node.args[0].id))
    seen: set[tuple[str, str]] = set()
    while reached:
        key = reached.pop()
        function = table[key]
        if (
            key in seen
            or _initialising(key[1])
            or any(_no_grad(d) for d in function.decorator_list)
        ):
            continue
        seen.add(key)
        reached.extend(_callees(key[0], function, table) - seen)
    spans = [
        (table[key].lineno, table[key].end_lineno or table[key].lineno) for key in seen
    ]
    quiet = [span for node in tree_nodes(tree, *_QUIET) if (span := _quiet_span(node))]
    return spans, quiet


# The classes ``_quiet_span`` can give lines for.
_QUIET = (
    ast.With,
    ast.AsyncWith,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.If,
    ast.IfExp,
)


def _quiet_span(node: ast.AST) -> tuple[int, int] | None:
    """The lines of a `no_grad` block, a `no_grad` or initialising function, or the branch a
    constant test never takes; None for any other node."""
    last = getattr(node, "end_lineno", None) or getattr(node, "lineno", 0)
    if isinstance(node, (ast.With, ast.AsyncWith)):
        if any(_no_grad(item.context_expr) for item in node.items):
            return node.lineno, last
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        if _initialising(node.name) or any(_no_grad(d) for d in node.decorator_list):
            return node.lineno, last
    elif isinstance(node, (ast.If, ast.IfExp)) and isinstance(node.test, ast.Constant):
        branch = node.orelse if node.test.value else node.body
        branch = branch if isinstance(branch, list) else [branch]
        if branch:
            return branch[0].lineno, branch[-1].end_lineno or last
    return None


def differentiated(ctx: ModuleContext) -> bool:
    """Whether the statement being converted can run inside a differentiated function."""
    cached = ctx.state.get(_CACHE)
    if cached is None:
        tree = ctx.state.get("ast")
        cached = (
            _lines(tree, ctx.module_classes)
            if isinstance(tree, ast.Module)
            else ([], [])
        )
        ctx.state[_CACHE] = cached
    spans, quiet = cached  # type: ignore[misc]
    line = ctx.position()[0]
    inside = any(first <= line <= last for first, last in spans)
    return inside and not any(first <= line <= last for first, last in quiet)


def _untracked(root: cst.BaseExpression) -> bool:
    """A target torch does not track either (`w.data`, `x.detach()`), or the module's own
    state (`self.num_batches_tracked`, a running statistic): bookkeeping beside the output,
    and a Parameter torch refuses to update in place where its gradient is taken."""
    node = root
    while isinstance(node, (cst.Attribute, cst.Call, cst.Subscript)):
        if isinstance(node, cst.Attribute) and node.attr.value == "data":
            return True
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "detach"
        ):
            return True
        node = node.func if isinstance(node, cst.Call) else node.value  # type: ignore[assignment]
    return (
        isinstance(root, cst.Attribute)
        and isinstance(node, cst.Name)
        and node.value == "self"
    )


# The forward functions the training rewrite passes to `mindspore.value_and_grad`.
_GENERATED_FORWARD = "forward_fn"
_FRAMEWORKS = frozenset({"torch", "F", "nn", "mindspore", "ops", "mint", "np", "math"})


def _program_calls(value: ast.AST, tainted: set[str]) -> bool:
    """Whether ``value`` calls something of the program (`model(x)`, `self.net(x)`) or reads a
    name that holds such a result."""
    for node in ast.walk(value):
        if isinstance(node, ast.Name) and node.id in tainted:
            return True
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                if func.id not in _FRAMEWORKS and not hasattr(builtins, func.id):
                    return True
                continue
            while isinstance(func, (ast.Attribute, ast.Call, ast.Subscript)):
                func = func.func if isinstance(func, ast.Call) else func.value
            if isinstance(func, ast.Name) and func.id == "self":
                return True
    return False


def _model_output_in_value_and_grad(
    root: cst.BaseExpression, ctx: ModuleContext
) -> bool:
    """Whether ``root`` names, inside a forward function the training rewrite differentiates,
    a tensor that a call of the program's own gave (`out = model(x)`), or one computed from it:
    data updated before the model sees it (`x.sub_(mean)`) gets no gradient either way."""
    if not isinstance(root, cst.Name):
        return False
    function = next(
        (n for n in reversed(ctx.stack) if isinstance(n, cst.FunctionDef)), None
    )
    if function is None or not function.name.value.startswith(_GENERATED_FORWARD):
        return False
    try:
        tree = ast.parse(cst.Module([]).code_for_node(function).strip())
    except SyntaxError:
        return False
    tainted: set[str] = set()
    changed = True
    while changed:
        changed = False
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and _program_calls(node.value, tainted):
                for target in node.targets:
                    for name in ast.walk(target):
                        if isinstance(name, ast.Name) and name.id not in tainted:
                            tainted.add(name.id)
                            changed = True
    return root.value in tainted


def report_grad_assign(root: cst.BaseExpression, ctx: ModuleContext) -> None:
    """TM963 at the statement being converted where ``root``, updated with `ops.assign`, can
    be differentiated there."""
    if _untracked(root):
        return
    if not (differentiated(ctx) or _model_output_in_value_and_grad(root, ctx)):
        return
    name = cst.Module([]).code_for_node(root)
    ctx.report(
        GRAD_ASSIGN.id,
        "MindSpore's Assign passes no gradient to the value it writes; inside a "
        f"differentiated function this in-place update of `{name}` computes wrong gradients",
        GRAD_ASSIGN.use_instead,
        severity=WARNING,
    )
