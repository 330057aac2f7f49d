"""What a LibCST statement reads and writes, found on its ``ast`` form.

The training and autograd rules move statements into functions and reorder them; these helpers say
which names flow where. A statement is rendered and parsed with ``ast`` (it has load/store contexts),
cached per node.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass, field

import libcst as cst

_EMPTY = cst.Module(body=[])
_CACHE: dict[int, tuple[cst.CSTNode, ast.Module]] = {}

# Reads inside these never carry a gradient: the value is a constant for the differentiation.
NONDIFF_METHODS = frozenset(
    {
        "detach",
        "item",
        "tolist",
        "numpy",
        "asnumpy",
        "size",
        "dim",
        "numel",
        "argmax",
        "argmin",
    }
)
NONDIFF_FUNCTIONS = frozenset(
    {"stop_gradient", "len", "int", "float", "bool", "str", "isinstance", "type"}
)


def code_of(node: cst.CSTNode) -> str:
    return _EMPTY.code_for_node(node)


def parse(node: cst.CSTNode) -> ast.Module:
    """The ``ast`` of a statement (or a block of them), dedented."""
    cached = _CACHE.get(id(node))
    if cached is not None and cached[0] is node:
        return cached[1]
    text = code_of(node)
    try:
        tree = ast.parse(text)
    except SyntaxError:
        import textwrap

        tree = ast.parse(textwrap.dedent(text))
    _CACHE[id(node)] = (node, tree)
    return tree


@dataclass
class Usage:
    """Names a statement reads (in order, with whether a gradient can flow through the read) and writes."""

    reads: list[tuple[str, bool]] = field(default_factory=list)
    writes: set[str] = field(default_factory=set)
    # Receivers of in-place methods (``x.fill_()``), ``x[i] = ...`` and ``x.a = ...``: read and written.
    mutates: set[str] = field(default_factory=set)
    calls: list[ast.Call] = field(default_factory=list)

    @property
    def read_names(self) -> list[str]:
        seen: list[str] = []
        for name, _ in self.reads:
            if name not in seen:
                seen.append(name)
        return seen

    def diff_reads(self) -> set[str]:
        return {name for name, diff in self.reads if diff}


class _UsageVisitor(ast.NodeVisitor):
    def __init__(self) -> None:
        self.usage = Usage()
        self.nondiff = 0
        self.local: list[set[str]] = []

    def _is_local(self, name: str) -> bool:
        return any(name in scope for scope in self.local)

    def visit_Name(self, node: ast.Name) -> None:
        if self._is_local(node.id):
            return
        if isinstance(node.ctx, ast.Load):
            self.usage.reads.append((node.id, self.nondiff == 0))
        else:
            self.usage.writes.add(node.id)

    def _root(self, node: ast.AST) -> str | None:
        while isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        return node.id if isinstance(node, ast.Name) else None

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            root = self._root(node.value)
            if root is not None:
                self.usage.mutates.add(root)
            self.visit(node.value)
            return
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            root = self._root(node.value)
            if root is not None:
                self.usage.mutates.add(root)
            self.visit(node.value)
            self.visit(node.slice)
            return
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.visit(node.value)
        if isinstance(node.target, ast.Name):
            self.usage.reads.append((node.target.id, self.nondiff == 0))
            self.usage.writes.add(node.target.id)
        else:
            self.visit(node.target)

    def visit_Call(self, node: ast.Call) -> None:
        self.usage.calls.append(node)
        func = node.func
        nondiff = False
        if isinstance(func, ast.Attribute):
            if func.attr.endswith("_") and not func.attr.endswith("__"):
                root = self._root(func.value)
                if root is not None:
                    self.usage.mutates.add(root)
            if func.attr in NONDIFF_METHODS:
                self.nondiff += 1
                self.visit(func.value)
                self.nondiff -= 1
                for arg in [*node.args, *node.keywords]:
                    self.visit(arg)
                return
            nondiff = func.attr in NONDIFF_FUNCTIONS
        elif isinstance(func, ast.Name):
            nondiff = func.id in NONDIFF_FUNCTIONS
        self.visit(func)
        if nondiff:
            self.nondiff += 1
        for arg in [*node.args, *node.keywords]:
            self.visit(arg)
        if nondiff:
            self.nondiff -= 1

    def _scoped(self, names: Iterable[str], visit) -> None:
        self.local.append(set(names))
        visit()
        self.local.pop()

    def _comprehension(self, node) -> None:
        names: set[str] = set()
        for generator in node.generators:
            self.visit(generator.iter)
            names |= {
                n.id for n in ast.walk(generator.target) if isinstance(n, ast.Name)
            }

        def inner() -> None:
            for generator in node.generators:
                for condition in generator.ifs:
                    self.visit(condition)
            for part in ("elt", "key", "value"):
                if hasattr(node, part):
                    self.visit(getattr(node, part))

        self._scoped(names, inner)

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = (
        _comprehension
    )

    def visit_Lambda(self, node: ast.Lambda) -> None:
        names = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
        self._scoped(names, lambda: self.visit(node.body))

    def visit_FunctionDef(self, node) -> None:
        self.usage.writes.add(node.name)
        for decorator in node.decorator_list:
            self.visit(decorator)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.usage.writes.add(node.name)

    def visit_Import(self, node) -> None:
        for alias in node.names:
            self.usage.writes.add(alias.asname or alias.name.split(".")[0])

    visit_ImportFrom = visit_Import

    def visit_With(self, node: ast.With) -> None:
        grad_off = any(_is_no_grad(item.context_expr) for item in node.items)
        for item in node.items:
            self.visit(item)
        if grad_off:
            self.nondiff += 1
        for statement in node.body:
            self.visit(statement)
        if grad_off:
            self.nondiff -= 1


def _is_no_grad(expr: ast.AST) -> bool:
    func = expr.func if isinstance(expr, ast.Call) else expr
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in {"no_grad", "inference_mode"}


def usage(node: cst.CSTNode) -> Usage:
    visitor = _UsageVisitor()
    for statement in parse(node).body:
        visitor.visit(statement)
    return visitor.usage


def writes_of(node: cst.CSTNode) -> set[str]:
    found = usage(node)
    return found.writes | found.mutates


def names_bound_in(statements: Iterable[cst.CSTNode]) -> set[str]:
    names: set[str] = set()
    for statement in statements:
        names |= writes_of(statement)
    return names


def fresh_name(base: str, taken: set[str] | frozenset[str]) -> str:
    if base not in taken:
        return base
    i = 1
    while f"{base}_{i}" in taken:
        i += 1
    return f"{base}_{i}"


def exposed_reads(statements: Iterable[cst.CSTNode]) -> list[str]:
    """Names read before they are (definitely) written, in order: the inputs of a block of code."""
    exposed: list[str] = []
    defined: set[str] = set()
    for statement in statements:
        for node in parse(statement).body:
            defined = _exposed(node, defined, exposed)
    return exposed


def _loads(node: ast.AST) -> list[str]:
    visitor = _UsageVisitor()
    visitor.visit(node)
    return visitor.usage.read_names


def _stores(node: ast.AST) -> set[str]:
    visitor = _UsageVisitor()
    visitor.visit(node)
    return visitor.usage.writes


def _note(names: Iterable[str], defined: set[str], exposed: list[str]) -> None:
    for name in names:
        if name not in defined and name not in exposed:
            exposed.append(name)


def _exposed(node: ast.stmt, defined: set[str], exposed: list[str]) -> set[str]:
    """Record the reads of ``node`` not covered by ``defined``; return what is defined after it."""
    if isinstance(node, ast.If):
        _note(_loads(node.test), defined, exposed)
        body_defined = set(defined)
        for inner in node.body:
            body_defined = _exposed(inner, body_defined, exposed)
        else_defined = set(defined)
        for inner in node.orelse:
            else_defined = _exposed(inner, else_defined, exposed)
        return body_defined & else_defined
    if isinstance(node, ast.With):
        for item in node.items:
            _note(_loads(item.context_expr), defined, exposed)
            if item.optional_vars is not None:
                defined = defined | _stores(item.optional_vars)
        for inner in node.body:
            defined = _exposed(inner, defined, exposed)
        return defined
    if isinstance(node, ast.For) and not node.orelse:
        # the body reads its targets after the loop binds them; after the loop only what was
        # defined before is certain (it may run no iteration)
        _note(_loads(node.iter), defined, exposed)
        body_defined = defined | _stores(node.target)
        for inner in node.body:
            body_defined = _exposed(inner, body_defined, exposed)
        return defined
    if isinstance(node, (ast.For, ast.While, ast.Try)) or not isinstance(
        node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)
    ):
        _note(_loads(node), defined, exposed)
        return defined
    _note(_loads(node), defined, exposed)
    return defined | _stores(node)
