"""Helpers the nn, data and checkpoint rules share: which receiver is a Module, small node builders."""

from __future__ import annotations

import re

import libcst as cst

from ...migrator.context import ModuleContext
from .facts import Facts, cst_kind, facts

# Names that, in torch code, hold a Module when nothing else in the file says so.
MODULE_WORDS = re.compile(
    r"(model|net|module|encoder|decoder|backbone|head|classifier|generator|discriminator|critic|actor|policy)$",
    re.IGNORECASE,
)

KNOWN = "known"
GUESSED = "guessed"


def current_class(ctx: ModuleContext) -> str | None:
    """The innermost Module class of this file around the statement being visited."""
    known = facts(ctx)
    for statement in reversed(ctx.stack):
        if isinstance(statement, cst.ClassDef):
            name = statement.name.value
            return name if name in known.classes else None
    return None


def module_receiver(node: cst.BaseExpression, ctx: ModuleContext) -> str | None:
    """KNOWN when the file shows ``node`` holds a Module, GUESSED when only its name suggests it."""
    known: Facts = facts(ctx)
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value == "super"
    ):
        return KNOWN if current_class(ctx) else None
    if known.is_module_kind(cst_kind(node, known, current_class(ctx))):
        return KNOWN
    if ctx.qualname(node) is not None:
        return None
    traversed = _traversal_target(node, ctx)
    if traversed is not None:
        return traversed
    last = (
        node.attr.value
        if isinstance(node, cst.Attribute)
        else node.value
        if isinstance(node, cst.Name)
        else None
    )
    if last is not None and MODULE_WORDS.search(last) and last not in known.devices:
        return GUESSED
    return None


_TRAVERSALS = frozenset({"modules", "children"})


def _traversal_target(node: cst.BaseExpression, ctx: ModuleContext) -> str | None:
    """``m`` of an enclosing ``for m in model.modules():`` (or ``children()``): a Module, as
    certain as ``model`` is one."""
    if not isinstance(node, cst.Name):
        return None
    for stmt in reversed(ctx.stack):
        if not isinstance(stmt, cst.For):
            continue
        target, iterated = stmt.target, stmt.iter
        if not (isinstance(target, cst.Name) and target.value == node.value):
            continue
        if (
            isinstance(iterated, cst.Call)
            and not iterated.args
            and isinstance(iterated.func, cst.Attribute)
            and iterated.func.attr.value in _TRAVERSALS
        ):
            return module_receiver(iterated.func.value, ctx)
        return None
    return None


def receiver_kind(node: cst.BaseExpression, ctx: ModuleContext) -> str | None:
    return cst_kind(node, facts(ctx), current_class(ctx))


def method(receiver: cst.BaseExpression, name: str, args=()) -> cst.Call:
    return cst.Call(
        func=cst.Attribute(value=receiver, attr=cst.Name(name)), args=list(args)
    )


def keyword(name: str, value: cst.BaseExpression) -> cst.Arg:
    return cst.Arg(
        value=value,
        keyword=cst.Name(name),
        equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""),
            whitespace_after=cst.SimpleWhitespace(""),
        ),
    )


def positional(value: cst.BaseExpression) -> cst.Arg:
    return cst.Arg(value=value)


def tidy_args(args: list[cst.Arg]) -> list[cst.Arg]:
    """Commas between arguments and none after the last, after some were added or removed."""
    out = []
    for index, arg in enumerate(args):
        last = index == len(args) - 1
        if last:
            out.append(arg.with_changes(comma=cst.MaybeSentinel.DEFAULT))
        elif arg.comma == cst.MaybeSentinel.DEFAULT:
            out.append(
                arg.with_changes(
                    comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
                )
            )
        else:
            out.append(arg)
    return out


def literal_bool(node: cst.BaseExpression | None) -> bool | None:
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return node.value == "True"
    return None


def string_value(node: cst.BaseExpression | None) -> str | None:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def split_args(call: cst.Call) -> tuple[list[cst.Arg], dict[str, cst.Arg]]:
    positional_args = [a for a in call.args if a.keyword is None and not a.star]
    keywords = {a.keyword.value: a for a in call.args if a.keyword is not None}
    return positional_args, keywords


def has_star(call: cst.Call) -> bool:
    return any(a.star for a in call.args)
