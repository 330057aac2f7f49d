"""Statement templates for the rewritten loop, filled with nodes (never with source text)."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

MS_OPS = "mindspore.ops"


class _Fill(cst.CSTTransformer):
    def __init__(self, slots: dict[str, cst.BaseExpression]) -> None:
        self.slots = slots

    def leave_Name(self, original, updated):
        return self.slots.get(updated.value, updated)


def template(text: str, **slots: cst.BaseExpression | str) -> cst.SimpleStatementLine:
    """``text`` with each ``__SLOT__`` name replaced by a node (a string becomes a Name or dotted name)."""
    nodes = {
        f"__{k}__": (name(v) if isinstance(v, str) else v) for k, v in slots.items()
    }
    statement = cst.parse_statement(text)
    return statement.visit(_Fill(nodes))


def name_of(dotted_name: str) -> cst.BaseExpression:
    return name(dotted_name)


def name(dotted_name: str) -> cst.BaseExpression:
    parts = dotted_name.split(".")
    node: cst.BaseExpression = cst.Name(parts[0])
    for part in parts[1:]:
        node = cst.Attribute(value=node, attr=cst.Name(part))
    return node


def tuple_target(names: Sequence[str]) -> cst.BaseExpression:
    if len(names) == 1:
        return cst.Name(names[0])
    return cst.Tuple(
        [cst.Element(cst.Name(n)) for n in names],
        lpar=[cst.LeftParen()],
        rpar=[cst.RightParen()],
    )


def zeros(gvar: str, weights: cst.BaseExpression) -> cst.SimpleStatementLine:
    return template(
        "__G__ = tuple(mindspore.ops.zeros_like(p) for p in __W__)", G=gvar, W=weights
    )


def accumulate(gvar: str, grads: str) -> cst.SimpleStatementLine:
    return template(
        "__G__ = tuple(map(mindspore.ops.add, __G__, __N__))", G=gvar, N=grads
    )


def step(optimizer: str, gvar: str) -> cst.SimpleStatementLine:
    return template("__O__(__G__)", O=optimizer, G=gvar)


def forward_def(
    fn: str,
    params: Sequence[str],
    body: Sequence[cst.BaseStatement],
    outputs: Sequence[cst.BaseExpression],
) -> cst.FunctionDef:
    value: cst.BaseExpression
    if len(outputs) == 1:
        value = outputs[0]
    else:
        value = cst.Tuple([cst.Element(o) for o in outputs], lpar=[], rpar=[])
    body = list(body)
    if body:
        first = body[0]
        lines = [
            line
            for line in getattr(first, "leading_lines", ())
            if line.comment is not None
        ]
        body[0] = first.with_changes(leading_lines=lines)
        if POSITION is not None and body[0] is not first:
            POSITION(body[0], first)
    body.append(cst.SimpleStatementLine([cst.Return(value)]))
    return cst.FunctionDef(
        name=cst.Name(fn),
        params=cst.Parameters([cst.Param(cst.Name(p)) for p in params]),
        body=cst.IndentedBlock(body),
    )


def scaled_def(
    fn: str,
    inner: str,
    params: Sequence[str],
    outputs: Sequence[str],
    scaled: cst.BaseExpression,
) -> cst.FunctionDef:
    """``def forward_fn_scaled(...): loss = forward_fn(...); return scaler.scale(loss), loss``."""
    body = [plain_call(inner, params, outputs)]
    return forward_def(fn, params, body, [scaled, *(cst.Name(n) for n in outputs)])


def plain_call(
    fn: str, params: Sequence[str], outputs: Sequence[str]
) -> cst.SimpleStatementLine:
    """``loss, output = forward_fn(x, y)``: the forward on a path that differentiates nothing."""
    call = cst.Call(func=cst.Name(fn), args=[cst.Arg(cst.Name(p)) for p in params])
    if len(outputs) == 1:
        target: cst.BaseExpression = cst.Name(outputs[0])
    else:
        target = cst.Tuple(
            [cst.Element(cst.Name(n)) for n in outputs], lpar=[], rpar=[]
        )
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target)], call)])


def value_and_grad(
    grad_fn: str, fn: str, weights: cst.BaseExpression, has_aux: bool
) -> cst.SimpleStatementLine:
    if has_aux:
        return template(
            "__GF__ = mindspore.value_and_grad(__FN__, None, __W__, has_aux=True)",
            GF=grad_fn,
            FN=fn,
            W=weights,
        )
    return template(
        "__GF__ = mindspore.value_and_grad(__FN__, None, __W__)",
        GF=grad_fn,
        FN=fn,
        W=weights,
    )


def value_and_grad_input(
    grad_fn: str, fn: str, has_aux: bool
) -> cst.SimpleStatementLine:
    """Differentiate with respect to the first input (the output of a model run through ``vjp``)."""
    if has_aux:
        return template(
            "__GF__ = mindspore.value_and_grad(__FN__, 0, None, has_aux=True)",
            GF=grad_fn,
            FN=fn,
        )
    return template(
        "__GF__ = mindspore.value_and_grad(__FN__, 0, None)", GF=grad_fn, FN=fn
    )


def vjp(
    name: str, vjp_fn: str, call: cst.Call, weights: cst.BaseExpression
) -> cst.SimpleStatementLine:
    """``fake = netG(noise)`` -> ``fake, fake_vjp = mindspore.vjp(netG, noise, weights=...)``."""
    args = [
        cst.Arg(call.func),
        *[a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in call.args],
        cst.Arg(
            weights,
            keyword=cst.Name("weights"),
            equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
        ),
    ]
    value = cst.Call(func=name_of("mindspore.vjp"), args=args)
    target = cst.Tuple(
        [cst.Element(cst.Name(name)), cst.Element(cst.Name(vjp_fn))], lpar=[], rpar=[]
    )
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target)], value)])


def split(
    grads: str, parts: Sequence[tuple[str, str]]
) -> list[cst.SimpleStatementLine]:
    """``grads_a = grads[:len(a.parameters)]``, ``grads_b = grads[len(a.parameters):]``, ..."""
    out = []
    start: cst.BaseExpression | None = None
    for i, (target, weights) in enumerate(parts):
        size = cst.Call(func=cst.Name("len"), args=[cst.Arg(name(weights))])
        end = (
            None
            if i == len(parts) - 1
            else (
                size if start is None else cst.BinaryOperation(start, cst.Add(), size)
            )
        )
        index = cst.Slice(lower=start, upper=end)
        value = cst.Subscript(
            value=cst.Name(grads), slice=[cst.SubscriptElement(index)]
        )
        out.append(
            cst.SimpleStatementLine(
                [cst.Assign([cst.AssignTarget(cst.Name(target))], value)]
            )
        )
        start = end
    return out


def pullback(vjp_fn: str, input_grads: str, grads: str) -> cst.SimpleStatementLine:
    return template("_, __G__ = __V__(__I__)", G=grads, V=vjp_fn, I=input_grads)


def grad_call(
    grad_fn: str, params: Sequence[str], outputs: Sequence[str], grads: str
) -> cst.SimpleStatementLine:
    call = cst.Call(func=cst.Name(grad_fn), args=[cst.Arg(cst.Name(p)) for p in params])
    value_target = tuple_target(outputs)
    target = cst.Tuple(
        [cst.Element(value_target), cst.Element(cst.Name(grads))], lpar=[], rpar=[]
    )
    return cst.SimpleStatementLine(
        [cst.Assign(targets=[cst.AssignTarget(target)], value=call)]
    )


def clip_global_norm(
    gvar: str, max_norm: cst.BaseExpression
) -> cst.SimpleStatementLine:
    return template(
        "__G__ = mindspore.ops.clip_by_global_norm(__G__, __M__)", G=gvar, M=max_norm
    )


def clip_norm_exact(
    gvar: str, max_norm: cst.BaseExpression, norm: str
) -> list[cst.SimpleStatementLine]:
    """torch's ``clip_grad_norm_``: scale by ``min(max_norm / (total_norm + 1e-6), 1)``."""
    return [
        template(
            "__N__ = mindspore.ops.norm(mindspore.ops.stack([mindspore.ops.norm(g) for g in __G__]))",
            N=norm,
            G=gvar,
        ),
        template(
            "__G__ = tuple(g * mindspore.ops.clamp(__M__ / (__N__ + 1e-6), max=1.0) for g in __G__)",
            G=gvar,
            M=_paren(max_norm),
            N=norm,
        ),
    ]


def clip_value(gvar: str, value: cst.BaseExpression) -> cst.SimpleStatementLine:
    negative = cst.UnaryOperation(cst.Minus(), _paren(value))
    return template(
        "__G__ = mindspore.ops.clip_by_value(__G__, __LO__, __HI__)",
        G=gvar,
        LO=negative,
        HI=value,
    )


def unscale(gvar: str, scaler: str) -> cst.SimpleStatementLine:
    return template("__G__ = __S__.unscale(__G__)", G=gvar, S=scaler)


def finite_step(optimizer: str, gvar: str, finite: str) -> list[cst.BaseStatement]:
    check = template("__F__ = mindspore.amp.all_finite(__G__)", F=finite, G=gvar)
    guarded = cst.If(
        test=cst.Name(finite), body=cst.IndentedBlock([step(optimizer, gvar)])
    )
    return [check, guarded]


def adjust(scaler: str, finite: str) -> cst.SimpleStatementLine:
    return template("__S__.adjust(__F__)", S=scaler, F=finite)


def manual_update(
    param: str,
    grad: str,
    weights: cst.BaseExpression,
    gvar: str,
    values: Sequence[cst.BaseExpression],
) -> cst.For:
    body = [
        template("mindspore.ops.assign(__P__, __V__)", P=param, V=v) for v in values
    ]
    return cst.For(
        target=cst.Tuple(
            [cst.Element(cst.Name(param)), cst.Element(cst.Name(grad))],
            lpar=[],
            rpar=[],
        ),
        iter=cst.Call(
            func=cst.Name("zip"), args=[cst.Arg(weights), cst.Arg(cst.Name(gvar))]
        ),
        body=cst.IndentedBlock(body),
    )


def _paren(expr: cst.BaseExpression) -> cst.BaseExpression:
    if (
        isinstance(
            expr,
            (cst.BinaryOperation, cst.BooleanOperation, cst.UnaryOperation, cst.IfExp),
        )
        and not expr.lpar
    ):
        return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return expr


# Called as POSITION(new, old) for every statement rebuild makes, so findings keep their lines.
POSITION = None


def rebuild(
    block: Sequence[cst.BaseStatement],
    replace: dict[int, list],
    before: dict[int, list],
    orelse: dict[int, list] | None = None,
    after: dict[int, list] | None = None,
) -> list:
    """``block`` with statements replaced (by id) and insertions made, recursively.

    ``orelse`` gives an ``if`` (by id) an ``else:`` with those statements; ``after`` appends
    statements after one. Blank lines before a statement move to what is inserted before it; the
    comments of a removed statement move to the next statement."""
    extra = _Extra(orelse or {}, after or {})
    if extra.orelse or extra.after:
        return _rebuild(block, replace, before, extra)
    return _rebuild(block, replace, before, None)


class _Extra:
    def __init__(self, orelse: dict[int, list], after: dict[int, list]) -> None:
        self.orelse, self.after = orelse, after


def _rebuild(block, replace, before, extra) -> list:
    out: list = []
    pending: list = []
    for stmt in block:
        inserted = list(before.get(id(stmt), ()))
        if id(stmt) in replace:
            new = list(replace[id(stmt)])
        else:
            new = [_rebuild_compound(stmt, replace, before, extra)]
        if extra is not None and id(stmt) in extra.after:
            new.extend(extra.after[id(stmt)])
        if len(new) == 1 and _empty_if(new[0]):
            new = []
        lines = list(getattr(stmt, "leading_lines", ()))
        if (
            new
            and hasattr(new[0], "leading_lines")
            and new[0].leading_lines == tuple(lines)
            or (new and list(new[0].leading_lines) == lines)
        ):
            new[0] = new[0].with_changes(leading_lines=())
        elif new:
            lines = []
        blank = []
        while lines and lines[0].comment is None:
            blank.append(lines.pop(0))
        head = pending + blank
        pending = []
        if inserted:
            inserted[0] = inserted[0].with_changes(
                leading_lines=head + list(inserted[0].leading_lines)
            )
            head = []
        if new:
            new[0] = new[0].with_changes(
                leading_lines=head + lines + list(new[0].leading_lines)
            )
        else:
            pending = head + [line for line in lines if line.comment is not None]
        if POSITION is not None:
            for made in new:
                POSITION(made, stmt)
        out.extend(inserted)
        out.extend(new)
    if pending and out:
        pass
    return out


def _is_pass(suite) -> bool:
    return isinstance(suite, cst.IndentedBlock) and all(
        isinstance(s, cst.SimpleStatementLine)
        and all(isinstance(x, cst.Pass) for x in s.body)
        for s in suite.body
    )


def _empty_if(stmt) -> bool:
    """An ``if`` left with nothing but ``pass`` in every branch and a test without calls."""
    if not isinstance(stmt, cst.If) or not _is_pass(stmt.body):
        return False
    orelse = stmt.orelse
    if isinstance(orelse, cst.If):
        if not _empty_if(orelse):
            return False
    elif orelse is not None and not _is_pass(orelse.body):
        return False
    found = []

    class _Calls(cst.CSTVisitor):
        def visit_Call(self, node) -> None:
            found.append(node)

    stmt.test.visit(_Calls())
    return not found


def _suite(suite, replace, before, extra=None):
    if not isinstance(suite, cst.IndentedBlock):
        return suite
    body = _rebuild(suite.body, replace, before, extra)
    if not body:
        body = [cst.SimpleStatementLine([cst.Pass()])]
    return suite.with_changes(body=body)


def _rebuild_compound(stmt, replace, before, extra=None):
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef, cst.SimpleStatementLine)):
        return stmt
    if isinstance(stmt, (cst.For, cst.While)):
        changes = {"body": _suite(stmt.body, replace, before, extra)}
        if stmt.orelse is not None:
            changes["orelse"] = stmt.orelse.with_changes(
                body=_suite(stmt.orelse.body, replace, before, extra)
            )
        return stmt.with_changes(**changes)
    if isinstance(stmt, cst.If):
        changes = {"body": _suite(stmt.body, replace, before, extra)}
        if isinstance(stmt.orelse, cst.If):
            changes["orelse"] = _rebuild_compound(stmt.orelse, replace, before, extra)
        elif stmt.orelse is not None:
            changes["orelse"] = stmt.orelse.with_changes(
                body=_suite(stmt.orelse.body, replace, before, extra)
            )
        if extra is not None and id(stmt) in extra.orelse and stmt.orelse is None:
            changes["orelse"] = cst.Else(
                body=cst.IndentedBlock(list(extra.orelse[id(stmt)]))
            )
        return stmt.with_changes(**changes)
    if isinstance(stmt, cst.With):
        return stmt.with_changes(body=_suite(stmt.body, replace, before, extra))
    if isinstance(stmt, (cst.Try, cst.TryStar)):
        changes = {
            "body": _suite(stmt.body, replace, before, extra),
            "handlers": [
                h.with_changes(body=_suite(h.body, replace, before, extra))
                for h in stmt.handlers
            ],
        }
        if stmt.orelse is not None:
            changes["orelse"] = stmt.orelse.with_changes(
                body=_suite(stmt.orelse.body, replace, before, extra)
            )
        if stmt.finalbody is not None:
            changes["finalbody"] = stmt.finalbody.with_changes(
                body=_suite(stmt.finalbody.body, replace, before, extra)
            )
        return stmt.with_changes(**changes)
    if isinstance(stmt, cst.Match):
        return stmt.with_changes(
            cases=[
                c.with_changes(body=_suite(c.body, replace, before, extra))
                for c in stmt.cases
            ]
        )
    return stmt
