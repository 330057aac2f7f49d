"""Opaque statements: parse with LibCST only the statements the rules may look at.

Most lines of a file that uses torch lie in statements that mention no torch API (by the ``ast``
census): the stage walks never enter them, yet a LibCST parse builds every one of their nodes,
which is most of the cost of a conversion. Such a statement that occupies whole lines of its own
is replaced, in the text LibCST parses, by a one-line placeholder at the same indentation:

    def helper(x):              ->    __torch2ms_opaque__
        return x * 2

The statement stays whole in the ``ast`` tree (``ctx.state["ast"]``), from which the statement
index gives the placeholder the original's lines (``index.index_statements``), and the codegen
writes the original's text in its place (``engine.module_code``). No rule sees a placeholder's
content, so a placeholder must come out of the stages as it went in: one the rules replaced,
removed, copied or moved to another indentation is detected when the module is written
(``OpaqueLeak``), and the file is converted again from a full parse.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from .aliases import dotted, resolve, statements, walk_order
from .index import Census

PLACEHOLDER = "__torch2ms_opaque__"

# Statements shorter than this are parsed. A one-line statement is often what a rule follows
# a name through (`dd = {...}`, `classname = m.__class__.__name__`, `print(device)`), and hiding
# it gains little (timm, conversion CPU time: 1 line 17.1 s, 3 lines 18.1 s, none 21.0 s).
MIN_LINES = 3

# Statement kinds the rules read as real nodes even where they mention no torch: imports
# (aliases, the companion import), ``global``/``nonlocal`` (scopes), docstrings.
_KEPT = (ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal)


# Uses that make the training rules read every statement of the file: a backward's forward
# region, the helpers that run it for their callers and those calls.
_GRADIENT_STATE = frozenset(
    {".backward", "torch.autograd.grad", "torch.autograd.backward"}
)


_IMPORTS = (ast.Import, ast.ImportFrom)

# Methods ``rules.nn.cell.module_method`` rewrites by name, body included.
_REWRITTEN_METHODS = frozenset({"__setstate__", "get_extra_state", "set_extra_state"})


class OpaqueLeak(Exception):
    """A placeholder did not come out of the stages as it went in."""


@dataclass
class Reduced:
    """The text LibCST parses, and the ``ast`` statements its placeholders stand for."""

    text: str
    statements: set[int] = field(default_factory=set)  # id() of the ast statements

    def __bool__(self) -> bool:
        return bool(self.statements)


def _first_line(node: ast.stmt) -> int:
    decorators = getattr(node, "decorator_list", None)
    if decorators:
        return min(node.lineno, min(d.lineno for d in decorators))
    return node.lineno


def _blocks(node: ast.stmt, lines: list[str]) -> Iterator[list[ast.stmt]]:
    """The statement lists of ``node``; an `elif` (an If alone in ``orelse``) is not a
    statement of its own lines, so its lists are given instead."""
    for name in ("body", "orelse", "finalbody"):
        block = getattr(node, name, None)
        if not (isinstance(block, list) and block and isinstance(block[0], ast.stmt)):
            continue
        if name == "orelse" and isinstance(node, ast.If) and _elif(block, lines):
            yield from _blocks(block[0], lines)
        else:
            yield block
    for handler in getattr(node, "handlers", ()):
        yield handler.body
    for case in getattr(node, "cases", ()):
        yield case.body


def _elif(block: list[ast.stmt], lines: list[str]) -> bool:
    return (
        len(block) == 1
        and isinstance(block[0], ast.If)
        and lines[block[0].lineno - 1].lstrip().startswith("elif")
    )


def _binds_dict(node: ast.stmt) -> bool:
    """`dd = {'device': device, 'dtype': dtype}`, `dd = dict(...)`: the API rule reads the
    dicts a function binds to drop placement entries from the calls they are spread into."""
    if not isinstance(node, ast.Assign):
        return False
    value = node.value
    return isinstance(value, ast.Dict) or (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "dict"
    )


_PLACEMENT_KEYS = frozenset({"device", "dtype"})


def _placement_dict(value: ast.expr) -> bool:
    """`{'device': d, 'dtype': t}` or `dict(device=d)`: entries of device and dtype only."""
    if isinstance(value, ast.Dict):
        return bool(value.keys) and all(
            isinstance(key, ast.Constant) and key.value in _PLACEMENT_KEYS
            for key in value.keys
        )
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "dict"
        and not value.args
        and bool(value.keywords)
        and all(k.arg in _PLACEMENT_KEYS for k in value.keywords)
    )


def _in_place_method(name: str) -> bool:
    """`.masked_fill_`: the in-place rules read the statements after it for its input's uses."""
    return name.startswith(".") and name.endswith("_") and not name.endswith("__")


def _unwrapped_try(node: ast.stmt) -> bool:
    return isinstance(node, ast.Try) and any(isinstance(n, _IMPORTS) for n in node.body)


def _docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _whole_lines(node: ast.stmt, first: int, lines: list[str]) -> str | None:
    """The indentation of ``node`` when it occupies lines first..end alone (nothing before it on
    its first line, only a comment after it on its last); else None."""
    head = lines[first - 1]
    body = head.lstrip(" \t")
    indent = head[: len(head) - len(body)]
    if len(indent) != node.col_offset:
        return None  # `if x: y = 1`, or a form feed in the indentation
    if first != node.lineno and not body.startswith("@"):
        return None
    end = node.end_lineno
    if end is None or node.end_col_offset is None:
        return None
    tail = lines[end - 1].encode("utf-8")[node.end_col_offset :]
    tail = tail.decode("utf-8", "replace").strip()
    if tail and not tail.startswith("#"):
        return None  # `x = 1; y = 2`, `x = 1 \`
    return indent


def opaque_statements(
    tree: ast.Module,
    lines: list[str],
    census: Census,
    needs_nodes: Callable[[int, int], bool],
    min_lines: int | None = None,
) -> Iterator[tuple[ast.stmt, int, str]]:
    """The maximal statements of ``tree`` that need no LibCST nodes, with their first line and
    indentation: the census marks them irrelevant, they span at least ``min_lines`` whole lines,
    and ``needs_nodes(first, last)`` (what a rule reads from statements it does not enter) is
    False. Statements inside a relevant one are looked at in turn."""
    min_lines = MIN_LINES if min_lines is None else min_lines
    stack = [tree.body]
    while stack:
        for node in stack.pop():
            first = _first_line(node)
            last = node.end_lineno or node.lineno
            if census.relevant(first, last) or needs_nodes(first, last):
                stack.extend(_blocks(node, lines))
                continue
            if (
                last - first + 1 < min_lines
                or isinstance(node, _KEPT)
                or _docstring(node)
                or _binds_dict(node)
            ):
                continue
            indent = _whole_lines(node, first, lines)
            if indent is not None:
                yield node, first, indent


def reduce_source(
    source: str,
    tree: ast.Module,
    census: Census,
    needs_nodes: Callable[[int, int], bool],
    min_lines: int | None = None,
) -> Reduced:
    """``source`` with each opaque statement's lines replaced by a placeholder line."""
    if "\r" in source.replace("\r\n", ""):
        return Reduced(source)  # lone CR newlines: ast's lines are not the text's lines
    lines = source.splitlines(keepends=True)
    spans = []
    reduced = Reduced(source)
    for node, first, indent in opaque_statements(
        tree, lines, census, needs_nodes, min_lines
    ):
        spans.append((first, node.end_lineno or node.lineno, indent))
        reduced.statements.add(id(node))
    if not spans:
        return reduced
    spans.sort()
    out: list[str] = []
    at = 0  # lines written so far
    for first, last, indent in spans:
        out.extend(lines[at : first - 1])
        ending = lines[last - 1][len(lines[last - 1].rstrip("\r\n")) :]
        out.append(indent + PLACEHOLDER + ending)
        at = last
    out.extend(lines[at:])
    reduced.text = "".join(out)
    return reduced


class NeedsNodes:
    """Lines whose statements the rules read as LibCST nodes although the census marks them
    irrelevant, taken from the ``ast`` tree:

    - a file that runs a backward: the training rules read every statement around it;
    - the function around a line that holds a trigger word of a gradient rule or `inplace`
      (``scope_words``), or one of the names it declares (``scope_names``: `requires_grad`,
      `.grad`, `no_grad`, as whole names), or an in-place method call: those
      rules follow the gradient state, and the in-place rules the reads of a name, along its
      statements (outside functions the class, at module level the whole file);
    - a class derived from a torch class other than ``torch.nn``'s (`torch.autograd.Function`,
      a Dataset, an Optimizer): its rule reads each of its methods;
    - a function with a torch value as a parameter default (`act_layer=nn.ReLU`): the API rule
      reads how its body uses the parameter;
    - a `with` over a torch context (`torch.no_grad()`, autocast): the rules may unwrap it, which
      moves its statements to another indentation;
    - a loop or `with` whose header holds a trigger word (below): a rule may follow the name it
      binds (`for group in optimizer.param_groups`) through its body;
    - a `try` around imports: the imports rule replaces it with its `except ImportError` branch
      where the import is of a package built on torch;
    - a method whose body a rule rewrites by its name (``_REWRITTEN_METHODS``);
    - a line that holds a word a rule that runs on the file reads statements for where the
      census marks none (``rule.unmarked_words``: `param_groups`, `_foreach_`);
    - a line that rebinds, indexes or reads an attribute of a placement dict a function binds
      (`dd = {'device': d, 'dtype': t}`), and, in a module that defines devices (``devices``: `device = torch.device('cuda')`),
      a line that names one: the API rule drops the dicts rebound nowhere, the device rule the
      definitions read nowhere;
    - the lines ``extra`` names (``rules.nn.facts``: the attributes and methods the nn rules
      rename in statements they are not entered in).
    """

    def __init__(
        self,
        source: str,
        tree: ast.Module,
        aliases: dict[str, str],
        census: Census,
        words: Iterable[str] = (),
        scope_words: Iterable[str] = (),
        extra: Callable[[int, int], bool] = lambda first, last: False,
        devices: Iterable[str] = (),
        scope_names: Iterable[str] = (),
    ) -> None:
        self.extra = extra
        self.devices = frozenset(devices)
        self.reads: list[int] = []
        self.everything = any(use.name in _GRADIENT_STATE for use in census.uses)
        self.spans: list[tuple[int, int]] = []
        self.lines: list[int] = []
        if not self.everything:
            # The census's own sites the rules rewrite outside relevant statements: format
            # specs (`'{:.4f}'.format(m)` of a tensor) and watched attributes (`x.is_cuda`).
            sites = set(census.formats)
            for attribute in census.attributes.values():
                sites.update(attribute.lines)
            self.lines = sorted(sites.union(_lines_with(source, words)))
            self._scan(tree, aliases, census)
            self.reads.sort()
        scoped = []
        if not self.everything:
            scoped = sorted(
                set(_lines_with(source, scope_words))
                | set(_lines_with(source, scope_names, whole=True))
                | {use.line for use in census.uses if _in_place_method(use.name)}
            )
        if scoped:
            self._scopes(tree, scoped, source.split("\n"))

    def _scopes(self, tree: ast.Module, scoped: list[int], lines: list[str]) -> None:
        """The innermost function around each of the lines ``scoped`` needs nodes; outside any
        function, the class around it; outside any class, the whole file (module-level imports,
        strings and comments aside)."""
        functions: list[tuple[int, int]] = []
        stack = [tree.body]
        while stack:
            for node in stack.pop():
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    functions.append((_first_line(node), node.end_lineno or 0))
                stack.extend(_blocks(node, lines))
        top = [(_first_line(n), n.end_lineno or n.lineno, n) for n in tree.body]
        for line in scoped:
            around = [(a, b) for a, b in functions if a <= line <= b]
            if around:
                self.spans.append(max(around))  # the innermost: the latest to start
                continue
            if lines[line - 1].lstrip().startswith("#"):
                continue
            statement = next((n for a, b, n in top if a <= line <= b), None)
            if isinstance(statement, ast.ClassDef):
                self.spans.append((_first_line(statement), statement.end_lineno or 0))
            elif statement is not None and not (
                isinstance(statement, (ast.Import, ast.ImportFrom))
                or _docstring(statement)
            ):
                self.everything = True
                return

    def _scan(self, tree: ast.Module, aliases: dict[str, str], census: Census) -> None:
        def torch_name(node: ast.AST) -> str | None:
            name = dotted(node)
            return resolve(name, aliases) if name else None

        if self.devices:
            self.reads.extend(
                node.lineno
                for node in walk_order(tree)
                if isinstance(node, ast.Name) and node.id in self.devices
            )
        for node in statements(tree):  # no expression holds a statement
            if isinstance(node, ast.ClassDef):
                for base in node.bases:
                    qualified = torch_name(base)
                    if qualified and not qualified.startswith("torch.nn."):
                        self.spans.append((_first_line(node), node.end_lineno or 0))
                        break
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                defaults = [*node.args.defaults, *node.args.kw_defaults]
                if any(d is not None and torch_name(d) for d in defaults):
                    self.spans.append((_first_line(node), node.end_lineno or 0))
                if node.name in _REWRITTEN_METHODS:
                    self.spans.append((_first_line(node), node.end_lineno or 0))
                self._dict_reads(node)
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                header = max(i.context_expr.end_lineno or 0 for i in node.items)
                if census.relevant(node.lineno, header) or self._holds_word(
                    node.lineno, header
                ):
                    self.spans.append((node.lineno, node.end_lineno or 0))
            elif _unwrapped_try(node) or (
                isinstance(node, (ast.For, ast.AsyncFor))
                and self._holds_word(node.lineno, node.iter.end_lineno or node.lineno)
            ):
                self.spans.append((node.lineno, node.end_lineno or 0))

    def _dict_reads(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """The lines where ``function`` rebinds, indexes or reads an attribute of a name it binds
        to a placement dict at its top level (``rules.api.receivers.placement_dicts``)."""
        names = {
            statement.targets[0].id
            for statement in function.body
            if isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and _placement_dict(statement.value)
        }
        if not names:
            return
        for node in walk_order(function):
            if isinstance(node, (ast.Subscript, ast.Attribute)):
                value = node.value
                if isinstance(value, ast.Name) and value.id in names:
                    self.reads.append(value.lineno)
            elif (
                isinstance(node, ast.Name)
                and node.id in names
                and not isinstance(node.ctx, ast.Load)
            ):
                self.reads.append(node.lineno)

    def _holds_word(self, first: int, last: int) -> bool:
        i = bisect.bisect_left(self.lines, first)
        return i < len(self.lines) and self.lines[i] <= last

    def _holds_read(self, first: int, last: int) -> bool:
        i = bisect.bisect_left(self.reads, first)
        return i < len(self.reads) and self.reads[i] <= last

    def __call__(self, first: int, last: int) -> bool:
        if self.everything or self.extra(first, last):
            return True
        if self._holds_word(first, last) or self._holds_read(first, last):
            return True
        return any(a <= last and first <= b for a, b in self.spans)


def _lines_with(source: str, words: Iterable[str], whole: bool = False) -> list[int]:
    """The lines (1-based, sorted) whose text holds one of ``words`` (``whole``: as a whole
    name, which no letter, digit or underscore follows)."""
    pattern = "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))
    if not pattern:
        return []
    if whole:
        pattern = f"(?:{pattern})(?![A-Za-z0-9_])"
    found: list[int] = []
    line, at = 1, 0
    for match in re.finditer(pattern, source):
        line += source.count("\n", at, match.start())
        at = match.start()
        if not found or found[-1] != line:
            found.append(line)
    return found
