"""The tree pass: facts about training-step helpers that cross files.

A helper that runs backward on a loss it receives (a loss-scaler class, a step function) may be
defined in one file and called in another, and a scaler object may be built in one file and called
through a parameter in another (DeiT: ``main.py`` builds ``NativeScaler()`` and passes it to
``engine.train_one_epoch(..., loss_scaler, ...)``). The index reads each relevant file once with
``ast`` (definitions, imports with relative ones resolved, constructions, calls), the merge turns
the indexes into small picklable facts per file, and each file's conversion reads its facts through
``ModuleContext.tree``. Rules never open other files themselves.
"""

from __future__ import annotations

import ast
import os
import textwrap
from dataclasses import dataclass, field

from .aliases import dotted
from .tree_grads import grad_readers

# Library step callables kept as data (``rules.training.library_steps``), by qualified name.
LIBRARY_STEP_CLASSES = frozenset(
    {
        "timm.utils.NativeScaler",
        "timm.utils.cuda.NativeScaler",
        "timm.utils.ApexScaler",
        "timm.utils.cuda.ApexScaler",
    }
)
NONE = "None"
UNKNOWN = "?"


@dataclass(frozen=True)
class TreeHelper:
    """A definition in one file of the tree whose body runs backward (a function, or a class with
    a method that does), as its callers in other files see it."""

    key: str  # the qualified name: ``trainkit.scaler.ScaledStep``
    kind: str  # "class" | "function"
    name: str  # the name it is defined under
    source: str  # its text, dedented
    imports: tuple[
        tuple[str, str], ...
    ]  # the defining module's names -> qualified names
    path: str  # the defining file, as shown in findings


@dataclass(frozen=True)
class FileFacts:
    """What one file's conversion knows of the rest of the tree."""

    module: str | None = None
    # this module's imported names -> qualified names (relative imports resolved)
    imports: tuple[tuple[str, str], ...] = ()
    # names bound here to a helper defined in another file (imports, and parameters whose callers
    # all pass an instance of it)
    helpers: tuple[tuple[str, TreeHelper], ...] = ()
    # parameters whose callers all pass an instance of a library step class
    library_params: tuple[tuple[str, str], ...] = ()
    # parameters whose callers pass different things (or something unknown): name -> why
    uncertain: tuple[tuple[str, str], ...] = ()
    # names of this file's helpers that other files call or build
    called_elsewhere: frozenset[str] = frozenset()
    # keys that must stay torch code (a participant elsewhere left them): key -> reason
    kept: tuple[tuple[str, str], ...] = ()
    # keys this file takes part in: its conversion reports whether it converted each
    coupled: frozenset[str] = frozenset()
    # qualified names of the tree's functions that read only the `.grad` of the parameters
    # they are given (``migrator.tree_grads``)
    grad_readers: frozenset[str] = frozenset()

    @property
    def steps(self) -> bool:
        """Whether the file has training steps to convert with these facts."""
        return bool(self.coupled or self.uncertain)


@dataclass
class FileIndex:
    path: str
    display: str
    module: str
    imports: dict[str, str] = field(default_factory=dict)
    helpers: dict[str, TreeHelper] = field(default_factory=dict)
    defined: set[str] = field(default_factory=set)  # every top-level name it defines
    params: dict[str, tuple[list[str], dict[str, bool]]] = field(default_factory=dict)
    # (scope, target) -> qualified names of what it is bound to (NONE, UNKNOWN)
    bindings: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    # (scope, callee, [(position | keyword, argument name or NONE or UNKNOWN)])
    calls: list[tuple[str, str, list[tuple[object, str]]]] = field(default_factory=list)
    grad_readers: set[str] = field(default_factory=set)  # qualified names


def module_name(path: str, root: str) -> str:
    relative = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
    parts = relative[:-3].split(os.sep) if relative.endswith(".py") else [relative]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    parts = module.split(".") if module else []
    keep = len(parts) - node.level + (1 if is_package else 0)
    base = parts[: max(keep, 0)]
    return ".".join([*base, *([node.module] if node.module else [])])


def index_file(
    path: str, display: str, text: str, module: str, tree: ast.Module | None = None
) -> FileIndex | None:
    """The step facts of one file (``tree``: its ``ast`` where the caller parsed it)."""
    if tree is None:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            return None
    found = FileIndex(path, display, module)
    package = os.path.basename(path) == "__init__.py"
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            origin = _absolute(node, module, package)
            for alias in node.names:
                if alias.name != "*":
                    found.imports[alias.asname or alias.name] = f"{origin}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]
                found.imports[local] = alias.name if alias.asname else local
    lines = text.splitlines(keepends=True)
    if ".grad" in text:
        found.grad_readers = {
            f"{module}.{name}" if module else name for name in grad_readers(tree)
        }
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.defined.add(node.name)
            if _runs_backward(node):
                kind = "class" if isinstance(node, ast.ClassDef) else "function"
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                source = textwrap.dedent("".join(lines[first - 1 : node.end_lineno]))
                found.helpers[node.name] = TreeHelper(
                    f"{module}.{node.name}" if module else node.name,
                    kind,
                    node.name,
                    source,
                    (),
                    display,
                )
            if not isinstance(node, ast.ClassDef):
                found.params[node.name] = _params(node)
        _scope_facts(node, "", found)
    imports = tuple(sorted(found.imports.items()))
    for name, helper in found.helpers.items():
        found.helpers[name] = TreeHelper(
            helper.key, helper.kind, helper.name, helper.source, imports, display
        )
    return found


def _runs_backward(node: ast.AST) -> bool:
    """A class with a method that runs backward, or a function that runs it in its own body (a
    backward inside a closure it defines, as in timm's ``_backward``, is the closure's: callers
    of the function pass it no loss)."""
    if isinstance(node, ast.ClassDef):
        return any(
            isinstance(n, ast.Attribute) and n.attr == "backward"
            for n in ast.walk(node)
        )
    pending = list(ast.iter_child_nodes(node))
    while pending:
        inner = pending.pop()
        if isinstance(
            inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
        ):
            continue
        if isinstance(inner, ast.Attribute) and inner.attr == "backward":
            return True
        pending.extend(ast.iter_child_nodes(inner))
    return False


def _params(node) -> tuple[list[str], dict[str, bool]]:
    args = node.args
    plain = [*args.posonlyargs, *args.args]
    names = [a.arg for a in (*plain, *args.kwonlyargs)]
    defaults: dict[str, bool] = {}
    for arg, default in zip(plain[len(plain) - len(args.defaults) :], args.defaults):
        defaults[arg.arg] = isinstance(default, ast.Constant) and default.value is None
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        if default is not None:
            defaults[arg.arg] = (
                isinstance(default, ast.Constant) and default.value is None
            )
    return names, defaults


def _scope_facts(node: ast.AST, scope: str, found: FileIndex) -> None:
    """Bindings and calls of one top-level statement, scoped by its top-level definition."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        scope = node.name
    for inner in ast.walk(node):
        if isinstance(inner, ast.Assign) and len(inner.targets) == 1:
            target = dotted(inner.targets[0])
            if target is not None and "." not in target:
                found.bindings.setdefault((scope, target), set()).update(
                    _value_kinds(inner.value)
                )
        elif isinstance(inner, ast.Call):
            callee = dotted(inner.func)
            if callee is None or callee.split(".")[0] in ("self", "cls"):
                continue
            args: list[tuple[object, str]] = []
            for position, arg in enumerate(inner.args):
                if isinstance(arg, ast.Starred):
                    args.append(("*", UNKNOWN))
                    break
                args.append((position, _arg_kind(arg)))
            for keyword in inner.keywords:
                args.append((keyword.arg or "**", _arg_kind(keyword.value)))
            found.calls.append((scope, callee, args))


def _value_kinds(value: ast.AST) -> set[str]:
    """What an assignment may bind: both values of ``X() if c else None``."""
    if isinstance(value, ast.IfExp):
        return _value_kinds(value.body) | _value_kinds(value.orelse)
    return {_value_kind(value)}


def _value_kind(value: ast.AST) -> str:
    if isinstance(value, ast.Constant) and value.value is None:
        return NONE
    if isinstance(value, ast.Call):
        name = dotted(value.func)
        if name is not None:
            return "call:" + name
    return UNKNOWN


def _arg_kind(value: ast.AST) -> str:
    if isinstance(value, ast.Constant) and value.value is None:
        return NONE
    if isinstance(value, ast.Name):
        return "name:" + value.id
    return UNKNOWN
