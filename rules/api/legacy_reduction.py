"""torch's deprecated loss arguments `size_average` and `reduce`, folded into `reduction`, and
`generator=None`, torch's default stream, dropped.

Where either is given (not None), torch ignores `reduction` and uses `legacy_get_string`:
`reduce=False` is 'none', else `size_average=False` is 'sum', else 'mean' (each defaults to
True). With literal values the reduction is certain, so the call carries it instead; a value
known only at run time stays refused by the table.
"""

from __future__ import annotations

import libcst as cst

from .source_args import literal_source
from .spec import ApiMapping

LEGACY = ("size_average", "reduce")
_VALUES = {"None": None, "True": True, "False": False}
_EQUAL = cst.AssignEqual(
    whitespace_before=cst.SimpleWhitespace(""),
    whitespace_after=cst.SimpleWhitespace(""),
)


def legacy_reduction(size_average: bool | None, reduce: bool | None) -> str | None:
    """torch's reduction for the deprecated arguments; None when neither is given."""
    if size_average is None and reduce is None:
        return None
    if reduce is False:
        return "none"
    return "sum" if size_average is False else "mean"


def fold_legacy_reduction(
    mapping: ApiMapping, args: list[cst.Arg], kwargs: dict[str, cst.Arg]
) -> tuple[list[cst.Arg], dict[str, cst.Arg]]:
    """``args`` and ``kwargs`` with literal `size_average`/`reduce` replaced by the
    `reduction` they select; unchanged where they are not literals."""
    if not set(LEGACY) & set(mapping.unsafe_args):
        return args, kwargs
    params = list(mapping.params)
    named = dict(kwargs)
    positional = list(args)
    legacy_at = [params.index(n) for n in LEGACY if n in params]
    if legacy_at and len(args) > min(legacy_at):
        first = min(legacy_at)
        rest = params[first : len(args)]
        if len(rest) < len(args) - first or any(p.startswith("*") for p in rest):
            return args, kwargs
        for name, arg in zip(rest, args[first:]):
            if name in named:
                return args, kwargs
            named[name] = arg
        positional = list(args[:first])
    if not any(name in named for name in LEGACY):
        return args, kwargs
    values: dict[str, bool | None] = {}
    for name in LEGACY:
        source = literal_source(named[name]) if name in named else "None"
        if source not in _VALUES:
            return args, kwargs
        values[name] = _VALUES[source]
    reduction = legacy_reduction(values["size_average"], values["reduce"])
    named = {k: v for k, v in named.items() if k not in LEGACY}
    if reduction is not None:
        named["reduction"] = cst.Arg(
            cst.SimpleString(f"'{reduction}'"),
            keyword=cst.Name("reduction"),
            equal=_EQUAL,
        )
    return positional, named


def drop_default_generator(kwargs: dict[str, cst.Arg]) -> dict[str, cst.Arg]:
    """``kwargs`` without a literal `generator=None`: the default stream, which MindSpore's
    calls draw from too (any other generator stays refused)."""
    arg = kwargs.get("generator")
    if arg is None or literal_source(arg) != "None":
        return kwargs
    return {k: v for k, v in kwargs.items() if k != "generator"}
