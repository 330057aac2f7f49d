"""Name analysis on LibCST statements: what a statement reads and binds, and whether it is pure.

The gradient rules move and copy straight-line statements into functions; these helpers decide
when that keeps the meaning.
"""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.engine import STATEMENT_CLASSES, visit

# Builtins whose calls neither mutate their arguments nor have effects a move could reorder
# against the statements the gradient rules move (``print`` only writes to stdout).
PURE_BUILTINS = frozenset(
    {
        "print",
        "len",
        "float",
        "int",
        "str",
        "bool",
        "repr",
        "format",
        "isinstance",
        "type",
        "abs",
        "min",
        "max",
        "sum",
        "round",
        "range",
        "tuple",
        "list",
        "dict",
        "zip",
        "enumerate",
    }
)


class _Reads(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()
        self.stores: set[int] = set()
        self.bound_inside: set[str] = set()

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        visit(node.value, self)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) not in self.stores:
            self.names.add(node.value)

    def visit_Arg(self, node: cst.Arg) -> bool:
        visit(node.value, self)
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        inner = _Reads()
        visit(node.body, inner)
        params = {p.name.value for p in node.params.params}
        self.names |= inner.names - params
        return False

    def visit_CompFor(self, node: cst.CompFor) -> None:
        for name in _target_names(node.target):
            self.bound_inside.add(name)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        inner = _Reads()
        visit(node.body, inner)
        params = {p.name.value for p in node.params.params}
        self.names |= inner.names - params
        for decorator in node.decorators:
            visit(decorator, self)
        return False

    def visit_Param(self, node: cst.Param) -> bool:
        return False


def reads(node: cst.CSTNode) -> set[str]:
    """Names a node reads (attribute names and keywords excluded; targets of stores excluded)."""
    visitor = _Reads()
    for target in _store_nodes(node):
        visitor.stores.add(id(target))
    visit(node, visitor)
    return visitor.names - visitor.bound_inside


# Tensor methods and attributes whose result carries no gradient: integer or bool tensors,
# Python numbers, shapes. torch records no graph through them.
_NO_GRAPH_METHODS = frozenset(
    """
    long int short byte char bool argmax argmin argsort nonzero item tolist numel dim size
    eq ne lt le gt ge isnan isinf isfinite sign
    """.split()  # noqa: SIM905 - names as data, one block
)
_NO_GRAPH_ATTRIBUTES = frozenset({"shape", "dtype", "ndim", "device", "requires_grad"})


class _GraphReads(_Reads):
    def visit_Attribute(self, node: cst.Attribute) -> bool:
        if node.attr.value in _NO_GRAPH_ATTRIBUTES:
            return False
        return super().visit_Attribute(node)

    def visit_Call(self, node: cst.Call) -> bool:
        func = node.func
        return not (
            isinstance(func, cst.Attribute) and func.attr.value in _NO_GRAPH_METHODS
        )

    def visit_Comparison(self, node: cst.Comparison) -> bool:
        return False


def graph_reads(node: cst.CSTNode) -> set[str]:
    """The names a node reads where a gradient can flow from its value into theirs: `reads`
    without those read only inside integer casts, comparisons, `.item()` and shapes
    (`values[perm.long()]` reads `perm`, but no gradient reaches it)."""
    visitor = _GraphReads()
    for target in _store_nodes(node):
        visitor.stores.add(id(target))
    visit(node, visitor)
    return visitor.names - visitor.bound_inside


def _store_nodes(node: cst.CSTNode) -> list[cst.Name]:
    found: list[cst.Name] = []
    for small in _smalls(node):
        targets: list[cst.BaseExpression] = []
        if isinstance(small, cst.Assign):
            targets = [t.target for t in small.targets]
        elif isinstance(small, cst.AnnAssign):
            targets = [small.target]
        for target in targets:
            found.extend(_target_name_nodes(target))
    return found


def _target_name_nodes(target: cst.BaseExpression) -> list[cst.Name]:
    if isinstance(target, cst.Name):
        return [target]
    if isinstance(target, (cst.Tuple, cst.List)):
        out: list[cst.Name] = []
        for element in target.elements:
            out.extend(_target_name_nodes(element.value))
        return out
    if isinstance(target, cst.StarredElement):
        return _target_name_nodes(target.value)
    return []


def _target_names(target: cst.BaseExpression) -> list[str]:
    return [n.value for n in _target_name_nodes(target)]


def _smalls(node: cst.CSTNode) -> Iterable[cst.BaseSmallStatement]:
    if isinstance(node, cst.SimpleStatementLine):
        return node.body
    return ()


def binds(node: cst.CSTNode) -> set[str]:
    """Names a statement binds at its own level (assignments, defs, imports, loop targets...)."""
    out: set[str] = set()
    if isinstance(node, cst.SimpleStatementLine):
        for small in node.body:
            if isinstance(small, cst.Assign):
                for target in small.targets:
                    out.update(_target_names(target.target))
            elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
                out.update(_target_names(small.target))
            elif isinstance(small, cst.Import):
                for alias in small.names:
                    if alias.asname is not None:
                        out.update(_target_names(alias.asname.name))
                    else:
                        out.add(_dotted(alias.name).split(".")[0])
            elif isinstance(small, cst.ImportFrom) and not isinstance(
                small.names, cst.ImportStar
            ):
                for alias in small.names:
                    out.add(
                        alias.asname.name.value if alias.asname else alias.name.value
                    )  # type: ignore[union-attr]
        return out
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        return {node.name.value}
    # Compound statements: every name bound anywhere inside counts.
    collector = _Binder()
    visit(node, collector)
    return collector.names


class _Binder(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        self.names |= binds(node)
        return False

    def visit_For(self, node: cst.For) -> None:
        self.names.update(_target_names(node.target))

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self.names.update(_target_names(node.asname.name))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.names.add(node.name.value)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.names.add(node.name.value)
        return False

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.names.update(_target_names(node.target))


def _dotted(node: cst.CSTNode) -> str:
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
    return ".".join(reversed(parts))


def is_simple_assignment(statement: cst.CSTNode) -> bool:
    """``a = expr`` / ``a, b = expr`` / ``a += expr`` with name targets only, one per line."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    small = statement.body[0]
    if isinstance(small, cst.Assign):
        return all(_only_names(t.target) for t in small.targets)
    if isinstance(small, (cst.AugAssign, cst.AnnAssign)):
        return isinstance(small.target, cst.Name) and (
            not isinstance(small, cst.AnnAssign) or small.value is not None
        )
    return False


def _only_names(target: cst.BaseExpression) -> bool:
    if isinstance(target, cst.Name):
        return True
    if isinstance(target, (cst.Tuple, cst.List)):
        return all(_only_names(e.value) for e in target.elements)
    if isinstance(target, cst.StarredElement):
        return _only_names(target.value)
    return False


class _Calls(cst.CSTVisitor):
    def __init__(self) -> None:
        self.calls: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


def calls(node: cst.CSTNode) -> list[cst.Call]:
    visitor = _Calls()
    visit(node, visitor)
    return visitor.calls


class StatementIndex:
    """What a walk collects from a node (its calls, its attribute names), each statement of the
    module walked once: a statement seen before (nodes are immutable; a rebuilt parent keeps its
    unchanged children) contributes its list without a walk, so asking again about a block, a
    function or the whole module after its inner blocks costs only the statements that changed."""

    def __init__(self, walker: type[_Indexed]) -> None:
        self.walker = walker
        # id -> (the node, kept alive so that its id is not reused; what it holds in walk order)
        self.known: dict[int, tuple[cst.CSTNode, list]] = {}

    def __call__(self, node: cst.CSTNode) -> list:
        entry = self.known.get(id(node))
        if entry is not None and entry[0] is node:
            return entry[1]
        walker = self.walker(self.known, node)
        visit(node, walker)
        return walker.found


class _Indexed(cst.CSTVisitor):
    def __init__(self, known: dict, root: cst.CSTNode) -> None:
        self.known = known
        self.root = root
        self.found: list = []
        # Per statement entered: where its items start (None: they came from ``known``).
        self.starts: list[int | None] = []

    def _enter(self, node: cst.CSTNode) -> bool:
        entry = self.known.get(id(node))
        if entry is not None and entry[0] is node and node is not self.root:
            self.found.extend(entry[1])
            self.starts.append(None)
            return False
        self.starts.append(len(self.found))
        return True

    def _leave(self, node: cst.CSTNode) -> None:
        start = self.starts.pop()
        if start is not None:
            self.known[id(node)] = (node, self.found[start:])


class _IndexedCalls(_Indexed):
    """``calls``: every call, lambdas not entered."""

    def visit_Call(self, node: cst.Call) -> None:
        self.found.append(node)

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


class _IndexedAttributes(_Indexed):
    """The name of every attribute (``b`` of ``a.b``), everywhere."""

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.found.append(node.attr.value)


for _cls in STATEMENT_CLASSES:
    for _walker in (_IndexedCalls, _IndexedAttributes):
        setattr(_walker, f"visit_{_cls.__name__}", _Indexed._enter)
        setattr(_walker, f"leave_{_cls.__name__}", _Indexed._leave)


def call_index() -> StatementIndex:
    """``index(node)`` gives what ``calls(node)`` gives: the same calls in the same order."""
    return StatementIndex(_IndexedCalls)


def attribute_index() -> StatementIndex:
    """``index(node)`` gives the names of the attributes in ``node``, in walk order."""
    return StatementIndex(_IndexedAttributes)


def mentions(node: cst.CSTNode, names: set[str]) -> bool:
    return bool(reads(node) & names) or bool(binds(node) & names)


def attribute_reads(node: cst.CSTNode, attr: str) -> list[cst.Attribute]:
    """Every ``<name>.<attr>`` attribute node in ``node``."""
    finder = _AttributeReads(attr)
    visit(node, finder)
    return finder.found


class _AttributeReads(cst.CSTVisitor):
    def __init__(self, attr: str) -> None:
        self.attr = attr
        self.found: list[cst.Attribute] = []

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value == self.attr and isinstance(node.value, cst.Name):
            self.found.append(node)


# MindSpore's in-place idioms, which the API rules may already have produced from torch's `x.op_()`.
IN_PLACE_METHODS = frozenset({"assign_value", "set_data"})


def is_in_place(method: str) -> bool:
    """``x.add_(...)`` (torch) or ``x.assign_value(...)`` (MindSpore) updates ``x`` in place."""
    return (
        method.endswith("_") and not method.endswith("__")
    ) or method in IN_PLACE_METHODS


_ASSIGN_FUNCTIONS = frozenset({"ops.assign", "mindspore.ops.assign"})


def in_place_target(call: cst.Call) -> cst.BaseExpression | None:
    """The tensor a call updates in place: ``x`` of ``x.add_(...)``, ``x.assign_value(...)``, or
    ``ops.assign(x, ...)`` (the form the API rules write for torch's in-place methods)."""
    func = call.func
    if isinstance(func, cst.Attribute):
        if is_in_place(func.attr.value) and func.attr.value != "requires_grad_":
            return func.value
        chain = ModuleContext.dotted(func)
        if chain in _ASSIGN_FUNCTIONS and call.args:
            return call.args[0].value
    return None
