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


# Creation functions that give Python complex numbers torch's default complex dtype.
COMPLEX_DEFAULT = frozenset({"torch.tensor", "torch.as_tensor"})
_NUMBERS = (cst.Integer, cst.Float, cst.Imaginary)


def _number_literal(node: cst.BaseExpression) -> tuple[bool, bool]:
    """(whether ``node`` is numbers only, whether one of them is imaginary)."""
    if isinstance(node, _NUMBERS):
        return True, isinstance(node, cst.Imaginary)
    if isinstance(node, cst.UnaryOperation):
        return _number_literal(node.expression)
    if isinstance(node, cst.BinaryOperation):
        left, right = _number_literal(node.left), _number_literal(node.right)
        return left[0] and right[0], left[1] or right[1]
    if isinstance(node, (cst.List, cst.Tuple)):
        parts = [_number_literal(e.value) for e in node.elements]
        return all(p[0] for p in parts), any(p[1] for p in parts)
    return False, False


def complex_default(call: cst.Call) -> bool:
    """`torch.tensor([1+1j, 2])` without dtype: torch makes complex64 of Python complex numbers
    (its default float32's complex kind), MindSpore complex128, so the dtype is written out."""
    if any(_keyword(a) == "dtype" for a in call.args) or any(a.star for a in call.args):
        return False
    data = next(
        (a.value for a in call.args if _keyword(a) in (None, "data")),
        None,
    )
    if data is None or len([a for a in call.args if _keyword(a) is None]) > 1:
        return False
    numbers, imaginary = _number_literal(data)
    return numbers and imaginary


# torch functions whose result is a (values, indices) named tuple with int64 indices, where
# MindSpore's op returns a plain tuple -> whether its indices are int32 there. The companion's
# `values_indices` gives torch's form: always where the dtype differs, else where the module reads
# `.values` or `.indices`.
NAMED_PAIRS: dict[str, bool] = {
    "torch.max": False,
    "torch.min": False,
    "torch.median": False,
    "torch.cummax": False,
    "torch.sort": True,
    "torch.topk": True,
    "torch.cummin": True,
}
