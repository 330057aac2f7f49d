"""TM414: `p.normal_(mean, std)` and `p.uniform_(a, b)` statements fill `p` through `ops.assign`.

MindSpore 2.10 has no CPU kernel for the in-place `Tensor.normal_`/`uniform_`. Where the call is a
statement on a named tensor (`m.weight.data.normal_(0, 0.02)` in an `_init_weights`), the fill is
written as a draw of the tensor's shape assigned into it:
`ops.assign(p, (ops.randn_like(p) * std + mean).astype(p.dtype))`. The numbers differ from torch's
(another generator) but follow the same distribution, which is what an initialisation means.

On a new tensor (`torch.empty(shape, dtype=d).normal_()`, as random erasing draws its noise) nothing
else holds the tensor, so the fill is the draw itself: `ops.randn_like(ops.zeros(shape, dtype=d))`,
scaled where mean and std are numbers.
"""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.rule import API, Example, Rule, RuleMeta, register

# torch's parameters and defaults for each fill, and the MindSpore draw it scales.
_FILLS = {
    "normal_": (("mean", "std"), ("0", "1"), "mindspore.ops.randn_like"),
    "uniform_": (("from", "to"), ("0", "1"), "mindspore.ops.rand_like"),
}


@register
class RandomFillRule(Rule):
    meta = RuleMeta(
        id="TM414",
        title="In-place random fills of a named tensor become `ops.assign` of a draw",
        what="Rewrites the statements `p.normal_(mean, std)` and `p.uniform_(a, b)` on a named "
        "tensor or parameter (`p`, `m.weight`, `m.weight.data`) to `ops.assign(p, <draw>)` with "
        "`ops.randn_like`/`ops.rand_like` scaled to torch's distribution, cast to `p`'s dtype.",
        why="MindSpore 2.10 has no CPU kernel for `Tensor.normal_`/`Tensor.uniform_`; "
        "`ops.assign` updates the Parameter in place, as the torch call did.",
        use_instead="`ops.assign(p, (ops.randn_like(p) * std + mean).astype(p.dtype))`.",
        examples=(
            Example(
                before="import torch\n\ndef init(m, n):\n    m.weight.data.normal_(0, 0.02)\n"
                "    m.bias.uniform_(-n, n)\n",
                after="from mindspore import ops\n\ndef init(m, n):\n"
                "    ops.assign(m.weight.data, (ops.randn_like(m.weight.data) * 0.02).astype(m.weight.data.dtype))\n"
                "    ops.assign(m.bias, (ops.rand_like(m.bias) * (2 * n) - n).astype(m.bias.dtype))\n",
            ),
        ),
        family="api",
    )
    stage = API
    order = 45
    # Reads fill calls (`.normal_`) by their method name, entered statements otherwise.
    unmarked_words = ()

    def leave_Call(self, original: cst.Call, updated: cst.Call, ctx: ModuleContext):
        value = _fresh_fill(original, updated, ctx)
        if value is None:
            return updated
        ctx.applied.add(self.meta.id)
        return value

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated, ctx: ModuleContext
    ):
        body = list(updated.body)
        changed = False
        for i, small in enumerate(body):
            if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
                fill = _fill(small.value, ctx)
                if fill is not None:
                    body[i] = small.with_changes(value=fill)
                    changed = True
        if not changed:
            return updated
        ctx.applied.add(self.meta.id)
        return updated.with_changes(body=body)


def _fresh_fill(original: cst.Call, call: cst.Call, ctx: ModuleContext):
    """The draw that stands for a fill of a new tensor, or None: `R.normal_(mean, std)` and
    `R.uniform_(a, b)` where R is a new tensor `torch.empty(shape, dtype=d)` (or zeros, ones):
    the draw of R's shape and dtype (torch takes the bounds as numbers)."""
    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value not in _FILLS:
        return None
    created = original.func.value  # type: ignore[attr-defined]
    if not (
        isinstance(created, cst.Call)
        and ctx.qualname(created.func) in _CREATIONS
        and isinstance(func.value, cst.Call)
    ):
        return None
    names, defaults, draw = _FILLS[func.attr.value]
    values = dict(zip(names, defaults))
    for index, arg in enumerate(call.args):
        keyword = arg.keyword.value if arg.keyword is not None else None
        if arg.star or (keyword is None and index >= len(names)):
            return None
        name = keyword or names[index]
        if name not in names:
            return None  # generator=
        values[name] = _code(arg.value)
    first, second = (values[n] for n in names)
    if func.attr.value == "normal_":
        scale, shift = second, first
    else:
        scale, shift = _width(first, second), first
    # The draw in the new tensor's dtype (MindSpore's randn_like gives float32 for float16).
    dtype = [a for a in func.value.args if a.keyword and a.keyword.value == "dtype"]
    typed = f", dtype={_code(dtype[0].value)}" if dtype else ""
    sample = f"{ctx.dotted(ctx.name(draw))}({_code(func.value)}{typed})"
    value = cst.parse_expression(_scaled(sample, scale, shift))
    if isinstance(value, cst.BinaryOperation):
        # It stands where a call stood: a method read on it (`.log_()`) applies to all of it.
        value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return value


# New tensors of float32, or of the dtype given (`torch.empty(shape, dtype=d)`).
_CREATIONS = frozenset(
    {
        "torch.empty",
        "torch.zeros",
        "torch.ones",
        # shaped (and typed) like a tensor: the draw takes that shape and dtype
        "torch.empty_like",
        "torch.zeros_like",
        "torch.ones_like",
    }
)


def _scaled(sample: str, scale: str, shift: str) -> str:
    if scale != "1":
        sample = f"{sample} * {_wrapped(scale)}"
    if shift != "0":
        sample = (
            f"{sample} - {_wrapped(shift[1:])}"
            if _negated(shift)
            else f"{sample} + {_wrapped(shift)}"
        )
    return sample


def _fill(call: cst.Call, ctx: ModuleContext) -> cst.Call | None:
    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value not in _FILLS:
        return None
    receiver = func.value
    if (
        ctx.dotted(receiver) is None
        or ctx.qualname(receiver) is not None
        or ctx.on_imported(receiver)
    ):
        return None
    names, defaults, draw = _FILLS[func.attr.value]
    values = dict(zip(names, defaults))
    for index, arg in enumerate(call.args):
        if arg.star:
            return None
        if arg.keyword is None:
            if index >= len(names):
                return None
            name = names[index]
        elif arg.keyword.value in names:
            name = arg.keyword.value
        else:
            return None  # generator=, or a keyword torch does not take
        values[name] = _code(arg.value)
    first, second = (values[n] for n in names)
    target = _code(receiver)
    if func.attr.value == "normal_":
        scale, shift = second, first
    else:
        scale, shift = _width(first, second), first
    sample = _scaled(f"{ctx.dotted(ctx.name(draw))}({target})", scale, shift)
    value = cst.parse_expression(f"({sample}).astype({target}.dtype)")
    return cst.Call(
        ctx.name("mindspore.ops.assign"),
        [cst.Arg(receiver), cst.Arg(value)],
    )


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node).strip()


def _negated(code: str) -> bool:
    return code.startswith("-") and _atom(code[1:])


def _atom(code: str) -> bool:
    try:
        node = cst.parse_expression(code)
    except cst.ParserSyntaxError:
        return False
    return isinstance(node, (cst.Name, cst.Attribute, cst.Integer, cst.Float, cst.Call))


def _wrapped(code: str) -> str:
    return code if _atom(code) else f"({code})"


def _width(low: str, high: str) -> str:
    """`high - low` as short source: a number for two integers, `2 * x` for `-x, x`."""
    try:
        return str(int(high) - int(low))
    except ValueError:
        pass
    if low.startswith("-") and low[1:] == high and _atom(high):
        return f"2 * {high}"
    return f"{_wrapped(high)} - {_wrapped(low)}"
