"""Run the rules of one stage over a module in a single traversal.

The traversal follows LibCST's own order and semantics (``visit_*`` before the children, ``leave_*``
after them with the original and the updated node, ``RemoveFromParent``, ``FlattenSentinel``), but
it is cheaper than ``module.visit(transformer)``:

- a node is rebuilt only when one of its children changed, so unchanged subtrees keep their identity
  (positions keyed by ``id()`` stay valid for later stages, and unchanged statements are written back
  from the source text);
- whitespace, comments and operator tokens are not walked unless a rule handles such nodes;
- statements that mention no torch API (by the ``ast`` census) are not entered at all.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import typing
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import fields as dataclass_fields

import libcst as cst
from libcst._nodes import op as _op_nodes
from libcst._nodes import whitespace as _whitespace_nodes
from libcst._nodes.expression import _BaseParenthesizedNode
from libcst._nodes.internal import CodegenState

from .context import ModuleContext
from .opaque import OpaqueLeak
from .rule import Rule

_STATEMENT_TYPES = (cst.SimpleStatementLine, cst.BaseCompoundStatement)
# The statement classes a tree holds (the concrete ones): a visitor that handles statements by
# class name sets a handler for each.
STATEMENT_CLASSES = tuple(
    cls
    for cls in vars(cst).values()
    if isinstance(cls, type)
    and issubclass(cls, _STATEMENT_TYPES)
    and not inspect.isabstract(cls)
)
_NAME = cst.Name
_ATTRIBUTE = cst.Attribute
_HANDLERS: dict[type, tuple[dict[str, str], dict[str, str]]] = {}

# Nodes that hold only whitespace, comments or punctuation.
_TOKEN_TYPES = frozenset(
    cls
    for module in (_whitespace_nodes, _op_nodes)
    for cls in vars(module).values()
    if isinstance(cls, type)
    and issubclass(cls, cst.CSTNode)
    and cls.__module__ == module.__name__
) | {
    cst.LeftParen,
    cst.RightParen,
    cst.LeftSquareBracket,
    cst.RightSquareBracket,
    cst.LeftCurlyBrace,
    cst.RightCurlyBrace,
}
_TOKEN_NAMES = frozenset(cls.__name__ for cls in _TOKEN_TYPES)

# How a field is visited: a single node (removal → error / None / MaybeSentinel), a sequence, or
# a statement body (where a statement line emptied by removals disappears, as in LibCST).
_REQUIRED, _OPTIONAL, _SENTINEL, _SEQUENCE, _BODY, _ANY = range(6)
_KINDS = {
    "visit_required": _REQUIRED,
    "visit_optional": _OPTIONAL,
    "visit_sentinel": _SENTINEL,
    "visit_sequence": _SEQUENCE,
    "visit_body_sequence": _BODY,
}
_FIELDS: dict[type, tuple[tuple[str, int], ...]] = {}
_TOKEN_FIELDS: dict[type, frozenset[str]] = {}


# isinstance against LibCST's abstract base classes goes through ABCMeta; a dict of classes is
# several times cheaper on the hot paths of the walk.
_IS_NODE: dict[type, bool] = {}


def _is_node(value) -> bool:
    cls = value.__class__
    known = _IS_NODE.get(cls)
    if known is None:
        known = _IS_NODE[cls] = issubclass(cls, cst.CSTNode)
    return known


def _handler_names(cls: type) -> tuple[dict[str, str], dict[str, str]]:
    cached = _HANDLERS.get(cls)
    if cached is None:
        visits = {name[6:]: name for name in dir(cls) if name.startswith("visit_")}
        leaves = {name[6:]: name for name in dir(cls) if name.startswith("leave_")}
        cached = _HANDLERS[cls] = (visits, leaves)
    return cached


def _child_fields(cls: type) -> tuple[tuple[str, int], ...]:
    """The fields LibCST visits for ``cls``, in its order, read from ``_visit_and_replace_children``."""
    cached = _FIELDS.get(cls)
    if cached is not None:
        return cached
    order: list[tuple[str, int]] = []
    try:
        source = textwrap.dedent(inspect.getsource(cls._visit_and_replace_children))
        function = ast.parse(source).body[0]
        build = next(
            n
            for n in ast.walk(function)
            if isinstance(n, ast.Call) and getattr(n.func, "id", None) == cls.__name__
        )
        for keyword in build.keywords:
            value = keyword.value
            if (
                isinstance(value, ast.Call)
                and isinstance(value.func, ast.Name)
                and value.func.id in _KINDS
            ):
                order.append((keyword.arg, _KINDS[value.func.id]))
            elif isinstance(value, ast.IfExp):
                order.append((keyword.arg, _ANY))
    except (OSError, TypeError, SyntaxError, StopIteration, IndexError):
        order = [(f.name, _ANY) for f in dataclass_fields(cls)]
    cached = _FIELDS[cls] = tuple(order)
    return cached


def _token_fields(cls: type) -> frozenset[str]:
    """Fields of ``cls`` that can only hold whitespace, comments or punctuation."""
    cached = _TOKEN_FIELDS.get(cls)
    if cached is not None:
        return cached
    try:
        hints = typing.get_type_hints(cls)
    except Exception:  # noqa: BLE001 -- unresolvable annotations: walk every field
        hints = {}
    names = set()
    for name, hint in hints.items():
        classes = [
            c
            for c in _classes_in(hint)
            if isinstance(c, type) and issubclass(c, cst.CSTNode)
        ]
        if classes and all(
            any(issubclass(c, token) for token in _TOKEN_TYPES) for c in classes
        ):
            names.add(name)
    cached = _TOKEN_FIELDS[cls] = frozenset(names)
    return cached


def _classes_in(hint) -> list:
    args = typing.get_args(hint)
    if not args:
        return [hint]
    return [c for arg in args for c in _classes_in(arg)]


class StageWalker:
    """Dispatches each node to the handlers of every active rule, in pass order.

    Statements that mention no torch API (by the ``ast`` census) are not entered at all.
    A ``visit_*`` handler that returns False keeps the traversal out of that node's children.
    """

    def __init__(self, ctx: ModuleContext, rules: list[Rule]) -> None:
        self.ctx = ctx
        visits_by_name: dict[str, list[Callable]] = {}
        leaves_by_name: dict[str, list[Callable]] = {}
        for rule in rules:
            visits, leaves = _handler_names(type(rule))
            for node_type, attr in visits.items():
                visits_by_name.setdefault(node_type, []).append(getattr(rule, attr))
            for node_type, attr in leaves.items():
                leaves_by_name.setdefault(node_type, []).append(getattr(rule, attr))
        self.visits_by_name = visits_by_name
        self.leaves_by_name = leaves_by_name
        handled = set(visits_by_name) | set(leaves_by_name)
        self.skip_tokens = not handled & _TOKEN_NAMES
        # Classes ``walk`` returns as they are: the token nodes (unless a rule handles one), and
        # the classes found while planning that no handler takes and that have nothing to walk.
        self.skip: set[type] = set(_TOKEN_TYPES) if self.skip_tokens else set()
        # Per node class: (visit handlers, leave handlers, is a statement, child fields, the
        # visit and leave handlers for a Name/Attribute chain whose head no torch import binds,
        # or None).
        self.plans: dict[type, tuple] = {}

    def _plan(self, cls: type) -> tuple:
        name = cls.__name__
        child_fields = _child_fields(cls)
        if self.skip_tokens:
            tokens = _token_fields(cls)
            child_fields = tuple(f for f in child_fields if f[0] not in tokens)
        visits = tuple(self.visits_by_name.get(name, ()))
        leaves = tuple(self.leaves_by_name.get(name, ()))
        is_statement = issubclass(cls, _STATEMENT_TYPES)
        untorch = None
        if (cls is _NAME or cls is _ATTRIBUTE) and any(
            getattr(h, "torch_names_only", False) for h in visits + leaves
        ):
            untorch = (
                tuple(h for h in visits if not getattr(h, "torch_names_only", False)),
                tuple(h for h in leaves if not getattr(h, "torch_names_only", False)),
            )
        plan = (visits, leaves, is_statement, child_fields, untorch)
        self.plans[cls] = plan
        if not (visits or leaves or is_statement or child_fields):
            self.skip.add(cls)
        return plan

    def walk(self, node: cst.CSTNode):
        """The updated node, a ``RemovalSentinel`` or a ``FlattenSentinel``."""
        cls = type(node)
        if cls in self.skip:
            return node
        plan = self.plans.get(cls) or self._plan(cls)
        visits, leaves, is_statement, child_fields, untorch = plan
        ctx = self.ctx
        if untorch is not None:
            head = node
            while head.__class__ is _ATTRIBUTE:
                head = head.value
            if head.__class__ is not _NAME or head.value not in ctx.aliases:
                visits, leaves = untorch
                if not (visits or leaves or child_fields):
                    return node
        descend = True
        if is_statement:
            ctx.stack.append(node)
            info = ctx.statements.get(id(node))
            if info is not None and not info.relevant:
                descend = False
        if descend:
            for handler in visits:
                if handler(node, ctx) is False:
                    descend = False
        updated = node
        if descend and child_fields:
            changes = None
            skip = self.skip
            for field, kind in child_fields:
                value = getattr(node, field)
                child_cls = value.__class__
                if value is None or child_cls in skip:
                    continue
                if _IS_NODE.get(child_cls):
                    new = self.walk(value)
                    if new is value:
                        continue
                    if not _is_node(new):
                        new = _removed(value, new, kind)
                else:
                    new = self._field(value, kind)
                    if new is value:
                        continue
                if changes is None:
                    changes = {}
                changes[field] = new
            if changes:
                updated = node.with_changes(**changes)
        result = updated
        for handler in leaves:
            result = handler(node, result, ctx)
            if result.__class__ is not cls:
                break
        if result is not updated:
            result = _keep_parentheses(updated, result)
        if result is node:
            if is_statement and ctx.stack and ctx.stack[-1] is node:
                ctx.stack.pop()
            return node
        if is_statement and ctx.stack and ctx.stack[-1] is node:
            ctx.stack.pop()
        if is_statement and _is_node(result) and id(result) not in ctx.statements:
            # A rebuilt statement keeps its position for the later stages.
            info = ctx.statements.get(id(node))
            if info is not None:
                ctx.statements[id(result)] = info
                ctx.keep.append(result)
        if not _is_node(result) and not isinstance(
            result, (cst.RemovalSentinel, cst.FlattenSentinel)
        ):
            raise cst.CSTValidationError(
                f"Expected a node of type CSTNode or a RemovalSentinel, but got a return value of {type(result).__name__}"
            )
        return result

    def _field(self, value, kind: int):
        known = _IS_NODE.get(value.__class__)
        if known is None:
            known = _is_node(value)
        if known:
            result = self.walk(value)
            if result is value or _is_node(result):
                return result
            return _removed(value, result, kind)
        if isinstance(value, (tuple, list)):
            return self._sequence(value, kind == _BODY)
        return value

    def _sequence(self, children, body: bool):
        out = None
        is_node = _IS_NODE.get
        skip = self.skip
        walk = self.walk
        for i, child in enumerate(children):
            cls = child.__class__
            if cls in skip or not (is_node(cls) or _is_node(child)):
                if out is not None:
                    out.append(child)
                continue
            result = walk(child)
            if result is child:
                if out is not None:
                    out.append(child)
                continue
            if out is None:
                out = list(children[:i])
            if isinstance(result, cst.RemovalSentinel):
                continue
            if isinstance(result, cst.FlattenSentinel):
                for item in result:
                    if body and not child._is_removable() and item._is_removable():
                        continue
                    out.append(item)
            else:
                if body and not child._is_removable() and result._is_removable():
                    continue
                out.append(result)
        return children if out is None else tuple(out)


def _removed(value: cst.CSTNode, result, kind: int):
    """What a field holding one node becomes when the walk of ``value`` gave a sentinel."""
    if isinstance(result, cst.RemovalSentinel):
        if kind == _OPTIONAL:
            return None
        if kind == _SENTINEL:
            return cst.MaybeSentinel.DEFAULT
        raise TypeError(
            f"We got a RemovalSentinel while visiting a {type(value).__name__}. This node's parent does not allow it to be removed."
        )
    raise TypeError(
        f"We got a FlattenSentinel while visiting a {type(value).__name__}. This node's parent does not allow for it to be replaced with a sequence."
    )


def _keep_parentheses(updated, result):
    """A rule's replacement keeps the parentheses of the expression it replaces
    (`(x\n.reshape(-1)\n.to(d))` → `(x\n.reshape(-1))`): they may hold it over several lines."""
    lpar = getattr(updated, "lpar", None)
    if not lpar or not _is_node(result) or not hasattr(result, "lpar") or result.lpar:
        return result
    return result.with_changes(lpar=lpar, rpar=updated.rpar)


def run_stage(module: cst.Module, ctx: ModuleContext, rules: list[Rule]) -> cst.Module:
    """One traversal of ``module`` with every rule of a stage."""
    result = StageWalker(ctx, rules).walk(module)
    if isinstance(result, cst.RemovalSentinel):
        return module.with_changes(body=(), header=(), footer=())
    return result


# -- LibCST visitors and transformers, run the same cheap way -----------------------------------


def _visitor_plan(cls: type) -> tuple | None:
    """Handlers a LibCST visitor class defines itself: (visits, leaves, overrides on_visit,
    overrides on_leave, handles token nodes, per node class plans, the classes the walk returns
    as they are, is a transformer); None when it has per-field handlers."""
    cached = cls.__dict__.get(_PLAN, False)
    if cached is not False:
        return cached
    visits: dict[str, str] = {}
    leaves: dict[str, str] = {}
    hooks: set[str] = set()
    plan = None
    for klass in reversed(cls.__mro__):
        if klass is object or klass.__module__.split(".")[0] == "libcst":
            continue
        for attr in vars(klass):
            if attr in (
                "on_visit",
                "on_leave",
                "on_visit_attribute",
                "on_leave_attribute",
            ):
                hooks.add(attr)
            elif attr.startswith(("visit_", "leave_")):
                (visits if attr[0] == "v" else leaves)[attr[6:]] = attr
    names = set(visits) | set(leaves)
    if not ({"on_visit_attribute", "on_leave_attribute"} & hooks) and all(
        isinstance(getattr(cst, n, None), type) for n in names
    ):
        plan = (
            visits,
            leaves,
            "on_visit" in hooks,
            "on_leave" in hooks,
            bool(names & _TOKEN_NAMES),
            {},
            set() if names & _TOKEN_NAMES else set(_TOKEN_TYPES),
            issubclass(cls, cst.CSTTransformer),
        )
    setattr(cls, _PLAN, plan)
    return plan


# The plan is kept on the visitor class itself (in its own ``__dict__``: a subclass plans for
# itself): visitor classes defined inside functions come and go with theirs, and reading it is
# cheaper than a weak mapping's lookup.
_PLAN = "_torch2ms_walk_plan"


class VisitorWalker(StageWalker):
    """Runs a ``cst.CSTVisitor`` or ``cst.CSTTransformer`` like ``node.visit(visitor)``, in LibCST's
    order, but rebuilds only the nodes whose children changed and does not walk whitespace,
    comments or punctuation (unless the visitor handles such nodes)."""

    def __init__(self, visitor, plan) -> None:
        visits, leaves, own_visit, own_leave, tokens, plans, skip, transform = plan
        self.visitor = visitor
        self.transform = transform
        self.visit_names = visits
        self.leave_names = leaves
        self.on_visit = visitor.on_visit if own_visit else None
        self.on_leave = visitor.on_leave if own_leave else None
        self.skip_tokens = not tokens
        # Shared by every instance of the visitor class: per node class the handler names and
        # fields; the token classes (unless the visitor handles one) and the classes that no
        # handler takes and that have nothing to walk, which the walk returns as they are.
        self.plans = plans
        self.skip = skip

    def _plan(self, cls: type):
        name = cls.__name__
        child_fields = _child_fields(cls)
        if self.skip_tokens:
            tokens = _token_fields(cls)
            child_fields = tuple(f for f in child_fields if f[0] not in tokens)
        plan = (self.visit_names.get(name), self.leave_names.get(name), child_fields)
        self.plans[cls] = plan
        if (
            plan[0] is None
            and plan[1] is None
            and not child_fields
            and self.on_visit is None
            and self.on_leave is None
        ):
            self.skip.add(cls)
        return plan

    def walk(self, node: cst.CSTNode):
        cls = type(node)
        if cls in self.skip:
            return node
        visit, leave, child_fields = self.plans.get(cls) or self._plan(cls)
        if self.on_visit is not None:
            descend = self.on_visit(node)
        else:
            descend = visit is None or getattr(self.visitor, visit)(node) is not False
        if not self.transform:
            if descend:
                skip = self.skip
                walk = self.walk
                is_node = _IS_NODE.get
                for field, _kind in child_fields:
                    value = getattr(node, field)
                    cls = value.__class__
                    if cls in skip:
                        continue
                    if is_node(cls) or _is_node(value):
                        walk(value)
                    elif isinstance(value, (tuple, list)):
                        for child in value:
                            cls = child.__class__
                            if cls not in skip and (is_node(cls) or _is_node(child)):
                                walk(child)
            if self.on_leave is not None:
                self.on_leave(node)
            elif leave is not None:
                getattr(self.visitor, leave)(node)
            return node
        updated = node
        if descend and child_fields:
            changes = None
            for field, kind in child_fields:
                value = getattr(node, field)
                new = self._field(value, kind)
                if new is not value:
                    if changes is None:
                        changes = {}
                    changes[field] = new
            if changes:
                updated = node.with_changes(**changes)
        if self.on_leave is not None:
            result = self.on_leave(node, updated)
        elif leave is not None:
            result = getattr(self.visitor, leave)(node, updated)
        else:
            result = updated
        if not _is_node(result) and not isinstance(
            result, (cst.RemovalSentinel, cst.FlattenSentinel)
        ):
            raise cst.CSTValidationError(
                f"Expected a node of type CSTNode or a RemovalSentinel, but got a return value of {type(result).__name__}"
            )
        return result


def visit(node: cst.CSTNode, visitor):
    """``node.visit(visitor)`` for a LibCST visitor or transformer without per-field handlers:
    the same handlers in the same order, several times cheaper. Nodes no handler changed keep
    their identity (LibCST would copy them), and ``on_visit``/``on_leave`` overrides are not
    called for whitespace, comment and punctuation nodes."""
    plan = _visitor_plan(type(visitor))
    if plan is None:
        return node.visit(visitor)
    result = VisitorWalker(visitor, plan).walk(node)
    if isinstance(result, cst.RemovalSentinel) and isinstance(node, cst.Module):
        return node.with_changes(body=(), header=(), footer=())
    return result


def visit_statements(module: cst.Module, visitor, skip: frozenset[int]) -> cst.Module:
    """``visit(module, visitor)`` over the module's statements whose ids are not in ``skip``
    (statements the parse produced that cannot hold what the visitor looks for); the module
    itself and the skipped statements are not entered. A statement the visitor removes is
    dropped, one it replaces with several is spliced in."""
    body = None
    for i, statement in enumerate(module.body):
        if id(statement) in skip:
            if body is not None:
                body.append(statement)
            continue
        result = visit(statement, visitor)
        if result is statement:
            if body is not None:
                body.append(statement)
            continue
        if body is None:
            body = list(module.body[:i])
        if isinstance(result, cst.FlattenSentinel):
            body.extend(result)
        elif not isinstance(result, cst.RemovalSentinel):
            body.append(result)
    return module if body is None else module.with_changes(body=body)


class _Found(Exception):
    pass


class _CompanionReads(cst.CSTVisitor):
    """The companion entries read (``ms_aux.X``) in the nodes rules built: the statements the
    parse produced, unchanged, hold only what the source held."""

    def __init__(self, module: str, wanted: set[str], parsed: frozenset[int]) -> None:
        super().__init__()
        self.module = module
        self.wanted = wanted
        self.parsed = parsed
        self.found: set[str] = set()

    def _statement(self, node: cst.CSTNode) -> bool:
        return id(node) not in self.parsed

    def visit_Attribute(self, node: cst.Attribute) -> None:
        value = node.value
        if value.__class__ is cst.Name and value.value == self.module:
            self.found.add(node.attr.value)
            if self.wanted <= self.found:
                raise _Found


# A statement the parse produced is not entered (handlers by class name: the walk then skips the
# names and other leaves no handler takes).
for _cls in STATEMENT_CLASSES:
    setattr(_CompanionReads, "visit_" + _cls.__name__, _CompanionReads._statement)


def companion_reads(
    module: cst.Module, ctx: ModuleContext, wanted: set[str]
) -> set[str]:
    """Which of the companion entries ``wanted`` ``module`` still reads. Statements left as the
    parse made them are not entered when the source names no companion entry, so the walk covers
    what the rules wrote; it stops once every entry is seen."""
    name = ctx.companion_import.module
    parsed = ctx.parsed if name + "." not in ctx.source else frozenset()
    reads = _CompanionReads(name, wanted, parsed)
    try:
        visit_statements(module, reads, parsed)
    except _Found:
        pass
    return reads.found & wanted


class StageTransformer(cst.CSTTransformer):
    """The same dispatch as a LibCST transformer (``module.visit(StageTransformer(ctx, rules))``)."""

    def __init__(self, ctx: ModuleContext, rules: list[Rule]) -> None:
        super().__init__()
        self.ctx = ctx
        self.visits: dict[str, list[Callable]] = {}
        self.leaves: dict[str, list[Callable]] = {}
        for rule in rules:
            visits, leaves = _handler_names(type(rule))
            for node_type, attr in visits.items():
                self.visits.setdefault(node_type, []).append(getattr(rule, attr))
            for node_type, attr in leaves.items():
                self.leaves.setdefault(node_type, []).append(getattr(rule, attr))

    # Rules have no per-field handlers; LibCST's default looks one up for every field of every node.
    def on_visit_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        return None

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        return None

    def on_visit(self, node: cst.CSTNode) -> bool:
        ctx = self.ctx
        if isinstance(node, _STATEMENT_TYPES):
            ctx.stack.append(node)
            info = ctx.statements.get(id(node))
            if info is not None and not info.relevant:
                return False
        descend = True
        for handler in self.visits.get(type(node).__name__, ()):
            if handler(node, ctx) is False:
                descend = False
        return descend

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):
        ctx = self.ctx
        result = updated_node
        for handler in self.leaves.get(type(original_node).__name__, ()):
            result = handler(original_node, result, ctx)
            if not isinstance(result, cst.CSTNode) or type(result) is not type(
                original_node
            ):
                break
        if ctx.stack and ctx.stack[-1] is original_node:
            ctx.stack.pop()
        return result


# -- parsing ---------------------------------------------------------------------------------
# Every LibCST node checks its fields when it is built (``CSTNode.__post_init__``). The parser
# only builds valid nodes, so the check is skipped while it runs: about a seventh of the parse.
# Nodes the rules build are checked as before.

_check_fields = cst.CSTNode.__post_init__


def _built_by_the_parser(self) -> None:
    return None


def parse_module(text: str) -> cst.Module:
    """``libcst.parse_module(text)``, without checking the fields of the nodes it builds."""
    cst.CSTNode.__post_init__ = _built_by_the_parser
    try:
        return cst.parse_module(text)
    finally:
        cst.CSTNode.__post_init__ = _check_fields


# -- writing the module back -----------------------------------------------------------------
# LibCST's codegen costs about as much as its parse. A statement line that no rule replaced is
# still the node that was parsed, so its text is the source's own: it is copied from there.


class _Splice:
    def __init__(
        self,
        source: str,
        lines: dict[int, tuple[int, int]],
        placeholders: frozenset[int] = frozenset(),
        reading: bool = False,
    ) -> None:
        self.source = source
        self.lines = lines
        self.placeholders = placeholders
        self.written: set[int] = set()  # placeholders written as their statement's text
        # While the rules run: placeholders are written at any indentation.
        self.reading = reading
        starts = [0]
        find = source.find
        at = find("\n")
        while at != -1:
            starts.append(at + 1)
            at = find("\n", at + 1)
        if starts[-1] != len(source):
            starts.append(len(source))
        self.starts = starts

    def emit(self, node: cst.SimpleStatementLine, state) -> bool:
        if self.reading:
            if id(node) in self.placeholders:
                return self._reindented(node, state)
            return self._emit(node, state)
        if id(node) in self.placeholders:
            if not self._emit(node, state) or id(node) in self.written:
                raise OpaqueLeak("a placeholder was copied or moved")
            self.written.add(id(node))
            return True
        return self._emit(node, state)

    def _emit(self, node: cst.SimpleStatementLine, state) -> bool:
        span = self.lines.get(id(node))
        if span is None:
            return False
        first, last = span
        starts = self.starts
        if last >= len(starts):
            return False
        begin, end = starts[first - 1], starts[last]
        text = self.source[begin:end]
        body = text.lstrip(" \t")
        indent = text[: len(text) - len(body)]
        if "".join(state.indent_tokens) != indent:
            return False
        for line in node.leading_lines:
            line._codegen(state)
        state.add_indent_tokens()
        # The final newline is a token of its own: the module drops it when the file has none.
        if body.endswith("\r\n"):
            state.add_token(body[:-2])
            state.add_token("\r\n")
        elif body.endswith("\n"):
            state.add_token(body[:-1])
            state.add_token("\n")
        else:
            state.add_token(body)
            state.add_token(state.default_newline)
        return True

    def _reindented(self, node: cst.SimpleStatementLine, state) -> bool:
        """The statement's text at the indentation of ``state`` (a rule printing a node:
        `code_for_node` of a statement starts at none)."""
        first, last = self.lines[id(node)]
        text = self.source[self.starts[first - 1] : self.starts[last]]
        body = text.lstrip(" \t")
        indent = text[: len(text) - len(body)]
        current = "".join(state.indent_tokens)
        for line in node.leading_lines:
            line._codegen(state)
        state.add_indent_tokens()
        lines = body.splitlines(keepends=True)
        for i, line in enumerate(lines):
            if i and line.startswith(indent):
                line = current + line[len(indent) :]
            if i == len(lines) - 1:
                stripped = line.rstrip("\r\n")
                state.add_token(stripped)
                state.add_token(line[len(stripped) :] or state.default_newline)
            else:
                state.add_token(line)
        return True


_ACTIVE: list[_Splice] = []


@contextmanager
def read_as_source(
    source: str, lines: dict[int, tuple[int, int]], placeholders: frozenset[int]
) -> Iterator[None]:
    """While the block runs, a rule that prints code (``code_for_node``, ``module.code``) reads
    a placeholder as the text of the statement it stands for (``migrator.opaque``), at the
    indentation it is printed at, and a statement line no rule replaced as its source text."""
    if "\r" in source.replace("\r\n", ""):
        yield  # lone CR newlines: lines would not line up with ast's (and no placeholders)
        return
    _ACTIVE.append(_Splice(source, lines, placeholders, reading=True))
    try:
        yield
    finally:
        _ACTIVE.pop()


_simple_statement_codegen = cst.SimpleStatementLine._codegen_impl


def _codegen_from_source(self: cst.SimpleStatementLine, state) -> None:
    if _ACTIVE and _ACTIVE[-1].emit(self, state):
        return
    _simple_statement_codegen(self, state)


cst.SimpleStatementLine._codegen_impl = _codegen_from_source


# LibCST's codegen enters two generator-based context managers for every expression: one that
# writes its parentheses and, inside it, one that records positions, which a plain
# ``CodegenState`` does not do. The same tokens come out of a plain object's enter and exit at
# half the cost of writing a module (timm: 2.6 s -> 1.4 s, the same text). States that record
# positions (``PositionProvider``) keep LibCST's own.


class _Parenthesized:
    __slots__ = ("node", "state")

    def __init__(self, node, state) -> None:
        self.node = node
        self.state = state

    def __enter__(self) -> None:
        for lpar in self.node.lpar:
            lpar._codegen(self.state)

    def __exit__(self, kind, value, traceback) -> bool:
        if kind is None:
            for rpar in self.node.rpar:
                rpar._codegen(self.state)
        return False


_NO_POSITIONS = nullcontext()
_parenthesize = _BaseParenthesizedNode._parenthesize


def _parenthesize_plain(self, state):
    if state.__class__ is CodegenState:
        return _Parenthesized(self, state)
    return _parenthesize(self, state)


def _no_positions(self, node, *, start_node=None, end_node=None):
    return _NO_POSITIONS


_BaseParenthesizedNode._parenthesize = _parenthesize_plain
CodegenState.record_syntactic_position = _no_positions


def module_code(
    module: cst.Module,
    parsed: cst.Module,
    source: str,
    lines: dict[int, tuple[int, int]],
    placeholders: frozenset[int] = frozenset(),
) -> str:
    """``module.code``, with the statement lines of ``parsed`` that survived unchanged copied from
    ``source`` (``lines``: their first and last line, from ``index_statements``).

    ``placeholders`` are the statements that stand for opaque ones (``migrator.opaque``): each is
    written as its statement's text, and must be so exactly once, at the indentation it was
    parsed at; otherwise ``OpaqueLeak`` is raised (a rule replaced, removed, copied or moved one).
    """
    if module is parsed:
        return source
    if "\r" in source.replace("\r\n", ""):
        if placeholders:
            raise OpaqueLeak("lone CR newlines: placeholders cannot be written back")
        return module.code  # lone CR newlines: lines would not line up with ast's
    splice = _Splice(source, lines, placeholders)
    _ACTIVE.append(splice)
    try:
        code = module.code
    finally:
        _ACTIVE.pop()
    if len(splice.written) != len(placeholders):
        raise OpaqueLeak("a rule removed or replaced a placeholder")
    return code
