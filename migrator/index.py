"""Positions and relevance for LibCST statements, taken from the fast ``ast`` parse.

LibCST's PositionProvider costs more than a parse. Statements line up one to one between the two
trees (a LibCST ``SimpleStatementLine`` holds one or more ``ast`` statements), so a walk over the
statement lists gives every LibCST statement its line and column, and tells whether it mentions
torch at all. Statements that do not are never visited by the rule passes.
"""

from __future__ import annotations

import ast
import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import libcst as cst

from .aliases import TORCH_ONLY_PACKAGES, dotted, resolve

_IMPORT_ROOTS = TORCH_ONLY_PACKAGES | {"torch"}
_TYPE_CHECKS = frozenset({"isinstance", "issubclass"})


@dataclass
class ApiUse:
    line: int
    column: int
    name: str  # the qualified torch name, or ``.method`` for a recognised method call
    used: bool = False


@dataclass
class StatementInfo:
    line: int
    column: int
    end_line: int
    relevant: bool


@dataclass
class AttributeSites:
    """Where a module names one attribute outside torch (`x.is_cuda`)."""

    lines: list[int] = field(default_factory=list)
    assigned: bool = False


@dataclass
class Census:
    """Every torch API use in a module, found on the ``ast`` tree."""

    uses: list[ApiUse] = field(default_factory=list)
    lines: list[int] = field(
        default_factory=list
    )  # sorted lines that hold a use or a torch import
    # Names the module binds itself (assignments, defs, parameters, non-torch imports).
    bound: frozenset[str] = frozenset()
    # Last parts of the names the module checks classes or instances against (`isinstance` and
    # `issubclass`, `is`/`==`/`in`): a class that is checked against cannot be swapped for another.
    class_checks: frozenset[str] = frozenset()
    # Attributes the rules watch (``Rule.watched_attributes``), by name: where the module reads
    # them (not as a torch name) and whether it assigns them itself.
    attributes: dict[str, AttributeSites] = field(default_factory=dict)
    # Lines of the format specs applied to a value (`f'{x:.4f}'`, `format(x, '.2f')`,
    # `'{:.4f}'.format(x)`): where a value may be formatted as a number.
    formats: list[int] = field(default_factory=list)
    # Names bound by imports of other modules than torch's (`init` after `from . import
    # initialization as init`): what they reach is never a tensor.
    imported: frozenset[str] = frozenset()
    # Names the module reads anywhere (an object bound to a name outside it is read by nothing).
    read: frozenset[str] = frozenset()

    def relevant(self, first: int, last: int) -> bool:
        i = bisect.bisect_left(self.lines, first)
        return i < len(self.lines) and self.lines[i] <= last

    def take(self, first: int, last: int, name: str) -> ApiUse | None:
        """The first unclaimed use named ``name`` within lines ``first..last``."""
        for use in self.uses:
            if first <= use.line <= last and not use.used and use.name == name:
                use.used = True
                return use
        return None


# Tensor attributes (read, not called) that rules rewrite: `grad.is_sparse`, `x.real`, `x.mH`.
TENSOR_FLAGS = frozenset({"is_sparse", "real", "imag", "mT", "mH", "H"})


def _device_type(node: ast.Attribute) -> bool:
    """`x.device.type`: a tensor's device is a string on MindSpore, which has no `.type`."""
    return (
        node.attr == "type"
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "device"
    )


class _CensusVisitor:
    """The census's handlers, called by ``_walk``; a handler that returns False keeps the walk
    out of the node's children."""

    def __init__(
        self,
        aliases: dict[str, str],
        methods: frozenset[str],
        watched: frozenset[str] = frozenset(),
        attributes: frozenset[str] = frozenset(),
    ) -> None:
        self.aliases = aliases
        self.watched_attributes = attributes
        self.attributes: dict[str, AttributeSites] = {}
        self.formats: list[int] = []
        self.methods = methods
        self.watched = watched
        self.watched_lines: list[int] = []
        self.uses: list[ApiUse] = []
        self.import_lines: list[int] = []
        self.bound: set[str] = set()
        # Names bound by non-torch imports: `re.sub()`, `math.sqrt()` are not Tensor methods.
        self.imported: set[str] = set()
        self.method_heads: list[tuple[ApiUse, str | None]] = []
        self.class_checks: set[str] = set()
        self.read: set[str] = set()

    def _chain(self, node: ast.AST) -> bool:
        name = dotted(node)
        if name is None:
            return False
        qualified = resolve(name, self.aliases)
        if qualified is None:
            return False
        self.uses.append(ApiUse(node.lineno, node.col_offset, qualified))
        return True

    def visit_Import(self, node: ast.Import) -> bool:
        for alias in node.names:
            if alias.name.split(".")[0] in _IMPORT_ROOTS:
                self.import_lines.append(node.lineno)
            else:
                self.bound.add(alias.asname or alias.name.split(".")[0])
                self.imported.add(alias.asname or alias.name.split(".")[0])
        return False

    def visit_ImportFrom(self, node: ast.ImportFrom) -> bool:
        if (
            node.module
            and node.module.split(".")[0] in _IMPORT_ROOTS
            and not node.level
        ):
            self.import_lines.append(node.lineno)
        else:
            self.bound.update(alias.asname or alias.name for alias in node.names)
            self.imported.update(alias.asname or alias.name for alias in node.names)
        return False

    def bound_def(self, node: ast.FunctionDef | ast.ClassDef) -> None:
        self.bound.add(node.name)

    def bound_arg(self, node: ast.arg) -> None:
        self.bound.add(node.arg)

    def chain_or_descend(self, node: ast.Attribute) -> bool:
        if isinstance(node.ctx, ast.Load) and (
            node.attr in TENSOR_FLAGS or _device_type(node)
        ):
            head = node.value
            while isinstance(head, (ast.Attribute, ast.Subscript)):
                head = head.value
            use = ApiUse(
                node.end_lineno or node.lineno, node.col_offset, "." + node.attr
            )
            self.method_heads.append(
                (use, head.id if isinstance(head, ast.Name) else None)
            )
        chained = self._chain(node)
        if node.attr in self.watched_attributes:
            sites = self.attributes.get(node.attr)
            if sites is None:
                sites = self.attributes[node.attr] = AttributeSites()
            if not chained:
                sites.lines.append(node.lineno)
            if isinstance(node.ctx, ast.Store):
                sites.assigned = True
        return not chained

    def formatted_value(self, node: ast.FormattedValue) -> None:
        if (
            node.format_spec is not None
            and node.conversion == -1
            and not isinstance(node.value, ast.Constant)
        ):
            self.formats.append(node.lineno)

    def visit_Name(self, node: ast.Name) -> bool:
        if isinstance(node.ctx, ast.Load):
            self.read.add(node.id)
            self._chain(node)
        elif node.id not in self.aliases:
            self.bound.add(node.id)
        return False

    def _checked(self, node: ast.AST) -> None:
        items = (
            node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else (node,)
        )
        for item in items:
            name = dotted(item)
            if name:
                self.class_checks.add(name.rpartition(".")[2])

    def compare(self, node: ast.Compare) -> None:
        self._checked(node.left)
        for comparator in node.comparators:
            self._checked(comparator)

    def call_method(self, node: ast.Call) -> None:
        func = node.func
        if _formats(node):
            self.formats.append(node.lineno)
        if (
            func.__class__ is ast.Name
            and func.id in _TYPE_CHECKS
            and len(node.args) == 2
        ):
            self._checked(node.args[1])
        if isinstance(func, ast.Attribute) and func.attr in self.methods:
            base = dotted(func.value)
            if base is None or resolve(base, self.aliases) is None:
                head = func.value
                while isinstance(head, ast.Attribute):
                    head = head.value
                use = ApiUse(
                    func.end_lineno or node.lineno, func.col_offset, "." + func.attr
                )
                self.method_heads.append(
                    (use, head.id if isinstance(head, ast.Name) else None)
                )
        elif isinstance(func, ast.Attribute) and func.attr in self.watched:
            self.watched_lines.append(func.end_lineno or node.lineno)

    def unary(self, node: ast.UnaryOp) -> None:
        """`~x` is watched: on an integer tensor torch's is a bitwise not, MindSpore's a logical one."""
        if node.op.__class__ is ast.Invert:
            self.watched_lines.append(node.lineno)


def _formats(call: ast.Call) -> bool:
    """`format(x, '.2f')`, `x.__format__('.2f')`, or `'...{:.4f}...'.format(x)` on a string
    whose text has a spec."""
    func = call.func
    if func.__class__ is ast.Name:
        values = [*call.args, *(k.value for k in call.keywords)]
        if func.id != "format" or len(values) != 2:
            return False
        spec = values[1]
        return isinstance(spec, ast.Constant) and spec.value not in ("", None)
    if func.__class__ is not ast.Attribute:
        return False
    if func.attr == "__format__":
        spec = call.args[0] if len(call.args) == 1 else None
        return isinstance(spec, ast.Constant) and spec.value not in ("", None)
    if func.attr != "format":
        return False
    template = func.value
    return isinstance(template, ast.Constant) and ":" in str(template.value)


def _walk(tree: ast.AST, visitor: _CensusVisitor) -> None:
    """``visitor.visit(tree)`` without NodeVisitor's per-node dispatch: an explicit stack, and a
    handler table by class. The census does not depend on the order nodes are seen in."""
    handlers = {
        ast.FunctionDef: visitor.bound_def,
        ast.AsyncFunctionDef: visitor.bound_def,
        ast.ClassDef: visitor.bound_def,
        ast.arg: visitor.bound_arg,
        ast.Import: visitor.visit_Import,
        ast.ImportFrom: visitor.visit_ImportFrom,
        ast.Attribute: visitor.chain_or_descend,
        ast.Name: visitor.visit_Name,
        ast.Call: visitor.call_method,
        ast.Compare: visitor.compare,
        ast.FormattedValue: visitor.formatted_value,
        ast.UnaryOp: visitor.unary,
    }
    get = handlers.get
    AST = ast.AST
    stack = [tree]
    pop = stack.pop
    push = stack.append
    while stack:
        node = pop()
        handler = get(node.__class__)
        if handler is not None and handler(node) is False:
            continue
        for name in node._fields:
            value = getattr(node, name, None)
            if value.__class__ is list:
                for item in value:
                    if isinstance(item, AST):
                        push(item)
            elif isinstance(value, AST):
                push(value)


def census(
    tree: ast.Module,
    aliases: dict[str, str],
    methods: frozenset[str],
    watched: frozenset[str] = frozenset(),
    attributes: frozenset[str] = frozenset(),
) -> Census:
    """The torch API uses of a module; calls of ``watched`` methods are not uses, but their
    statements are visited too. Where ``attributes`` are named is recorded, and so are the
    lines of format specs: facts of the module, taken in the same walk."""
    visitor = _CensusVisitor(aliases, methods, watched, attributes)
    _walk(tree, visitor)
    # Imports anywhere in the module count, so receivers are filtered once the walk is done.
    visitor.uses.extend(
        use for use, head in visitor.method_heads if head not in visitor.imported
    )
    uses = sorted(visitor.uses, key=lambda use: (use.line, use.column))
    lines = sorted(
        {use.line for use in uses}
        | set(visitor.import_lines)
        | set(visitor.watched_lines)
    )
    return Census(
        uses,
        lines,
        frozenset(visitor.bound),
        frozenset(visitor.class_checks),
        visitor.attributes,
        sorted(visitor.formats),
        frozenset(visitor.imported),
        frozenset(visitor.read),
    )


def index_statements(
    module: cst.Module,
    tree: ast.Module,
    uses: Census,
    lines: dict[int, tuple[int, int]] | None = None,
    opaque: Opaque | None = None,
) -> dict[int, StatementInfo]:
    """Give every LibCST statement its ``ast`` position, keyed by ``id()`` of the LibCST node.

    ``lines``, when given, receives the first and last line of every statement line whose small
    statements match the ``ast`` ones kind for kind (the text an unchanged one is written back from).
    ``opaque``, when ``module`` was parsed from a reduced text (``migrator.opaque``), names the
    ``ast`` statements its placeholders stand for; each placeholder gets the position and the
    lines of its statement, and its id is added to ``opaque.placeholders``.
    """
    table: dict[int, StatementInfo] = {}
    _align(module.body, tree.body, table, uses, lines, opaque)
    return table


@dataclass
class Opaque:
    """The ``ast`` statements a reduced text replaced (``id()``), and the LibCST placeholders
    that stand for them (``id()``, filled in by ``index_statements``)."""

    statements: set[int]
    placeholders: set[int] = field(default_factory=set)


# LibCST small statements whose ``ast`` class has another name.
_AST_NAMES = {"Del": "Delete"}


def _same_kinds(statement: cst.SimpleStatementLine, group: Sequence[ast.stmt]) -> bool:
    return len(statement.body) == len(group) and all(
        _AST_NAMES.get(type(small).__name__, type(small).__name__)
        == type(node).__name__
        for small, node in zip(statement.body, group)
    )


def _info(node: ast.stmt, uses: Census) -> StatementInfo:
    end = node.end_lineno or node.lineno
    first = node.lineno
    decorators = getattr(node, "decorator_list", None)
    if decorators:
        first = min(first, min(d.lineno for d in decorators))
    return StatementInfo(first, node.col_offset, end, uses.relevant(first, end))


def _align(
    cst_body: Sequence[cst.CSTNode],
    ast_body: Sequence[ast.stmt],
    table,
    uses,
    lines=None,
    opaque: Opaque | None = None,
) -> None:
    position = 0
    for statement in cst_body:
        if isinstance(statement, cst.SimpleStatementLine):
            count = len(statement.body)
            group = ast_body[position : position + count]
            position += count
            if not group:
                return
            info = _info(group[0], uses)
            info.end_line = max(n.end_lineno or n.lineno for n in group)
            info.relevant = uses.relevant(info.line, info.end_line)
            table[id(statement)] = info
            if opaque is not None and id(group[0]) in opaque.statements:
                opaque.placeholders.add(id(statement))
                if lines is not None:
                    lines[id(statement)] = (info.line, info.end_line)
            elif lines is not None and _same_kinds(statement, group):
                lines[id(statement)] = (info.line, info.end_line)
            continue
        if position >= len(ast_body):
            return
        node = ast_body[position]
        position += 1
        table[id(statement)] = _info(node, uses)
        for cst_block, ast_block in _blocks(statement, node):
            _align(cst_block, ast_block, table, uses, lines, opaque)


def _blocks(
    statement: cst.CSTNode, node: ast.stmt
) -> Iterable[tuple[Sequence[cst.CSTNode], list]]:
    if isinstance(statement, (cst.FunctionDef, cst.ClassDef, cst.With)):
        if isinstance(statement.body, cst.IndentedBlock):
            yield statement.body.body, node.body
    elif isinstance(statement, (cst.For, cst.While)):
        if isinstance(statement.body, cst.IndentedBlock):
            yield statement.body.body, node.body
        if statement.orelse is not None and isinstance(
            statement.orelse.body, cst.IndentedBlock
        ):
            yield statement.orelse.body.body, node.orelse
    elif isinstance(statement, cst.If):
        if isinstance(statement.body, cst.IndentedBlock):
            yield statement.body.body, node.body
        orelse = statement.orelse
        if isinstance(orelse, cst.If):
            yield [orelse], node.orelse
        elif orelse is not None and isinstance(orelse.body, cst.IndentedBlock):
            yield orelse.body.body, node.orelse
    elif isinstance(statement, (cst.Try, cst.TryStar)):
        if isinstance(statement.body, cst.IndentedBlock):
            yield statement.body.body, node.body
        for handler, ast_handler in zip(statement.handlers, node.handlers):
            if isinstance(handler.body, cst.IndentedBlock):
                yield handler.body.body, ast_handler.body
        if statement.orelse is not None and isinstance(
            statement.orelse.body, cst.IndentedBlock
        ):
            yield statement.orelse.body.body, node.orelse
        if statement.finalbody is not None and isinstance(
            statement.finalbody.body, cst.IndentedBlock
        ):
            yield statement.finalbody.body.body, node.finalbody
    elif isinstance(statement, cst.Match):
        for case, ast_case in zip(statement.cases, node.cases):
            if isinstance(case.body, cst.IndentedBlock):
                yield case.body.body, ast_case.body
