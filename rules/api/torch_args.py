"""Argument forms of torch calls that carry over without a mapping of their own.

- `self=`: torch's functional forms of Tensor methods name their first parameter `self`
  (`torch._foreach_neg(self=xs)`); the companion entries take it first, by position.
- `out=None`: torch's default, the same as leaving `out` out.
"""

from __future__ import annotations

import libcst as cst


def _keyword(arg: cst.Arg) -> str | None:
    return arg.keyword.value if arg.keyword is not None else None


def receiver_by_position(call: cst.Call) -> cst.Call:
    """`f(a=1, self=xs)` -> `f(xs, a=1)`; other calls unchanged."""
    receiver = next((a for a in call.args if _keyword(a) == "self"), None)
    if receiver is None or any(_keyword(a) is None and not a.star for a in call.args):
        return call
    first = cst.Arg(receiver.value)
    rest = [a for a in call.args if a is not receiver]
    args = [first, *rest]
    if rest:
        args[0] = first.with_changes(
            comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        )
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return call.with_changes(args=args)


def without_out_none(call: cst.Call) -> cst.Call:
    """`f(x, out=None)` -> `f(x)`: None is torch's default for `out`."""
    kept = [
        a
        for a in call.args
        if not (
            _keyword(a) == "out"
            and isinstance(a.value, cst.Name)
            and a.value.value == "None"
        )
    ]
    if len(kept) == len(call.args):
        return call
    if kept:
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return call.with_changes(args=kept)
