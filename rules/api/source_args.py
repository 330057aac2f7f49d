"""Apply a mapping to a call in source form: the LibCST side of ``translate_call``.

Arguments travel as ``cst.Arg`` nodes so that their comments and line breaks survive; a transform
replaces only the value, and a renamed keyword keeps the argument's own comma and whitespace.
"""

from __future__ import annotations

import ast

import libcst as cst

from .spec import ApiMapping, CallTranslation, Refusal, Untranslatable, translate_call

# The last part of a dtype written out, on torch's side or MindSpore's (`torch.long`, `mindspore.bool_`).
DTYPE_NAMES = frozenset(
    ("float", "half", "double", "short", "int", "long", "bool", "bool_", "bfloat16")
    + tuple(f"float{n}" for n in (16, 32, 64))
    + tuple(f"int{n}" for n in (8, 16, 32, 64))
    + tuple(f"uint{n}" for n in (8, 16, 32, 64))
    + ("float8_e4m3fn", "float8_e5m2", "complex64", "complex128")
)
_LITERALS = (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString)
_SIMPLE = (cst.Name, cst.Attribute, cst.Integer, cst.Float, cst.SimpleString)
_EQUAL = cst.AssignEqual(
    whitespace_before=cst.SimpleWhitespace(""),
    whitespace_after=cst.SimpleWhitespace(""),
)


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def literal_source(arg: cst.Arg) -> str | None:
    """The value's source when it is a literal (numbers, strings, True/False/None, tuples of those)."""
    value = arg.value
    if _is_literal(value):
        return _code(value)
    return None


def _is_literal(value: cst.BaseExpression) -> bool:
    if isinstance(value, _LITERALS):
        return True
    if isinstance(value, cst.Name):
        return value.value in ("True", "False", "None")
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
        return isinstance(value.expression, (cst.Integer, cst.Float))
    if isinstance(value, (cst.Tuple, cst.List)):
        return all(
            isinstance(e, cst.Element) and _is_literal(e.value) for e in value.elements
        )
    return False


def _number(value: cst.BaseExpression) -> float | None:
    if isinstance(value, (cst.Integer, cst.Float)) or (
        isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus)
    ):
        try:
            number = ast.literal_eval(_code(value))
        except (ValueError, SyntaxError):
            return None
        return number if isinstance(number, (int, float)) else None
    return None


def _expression(source: str) -> cst.BaseExpression:
    return cst.parse_expression(source)


def transform_arg(name: str, arg: cst.Arg) -> cst.Arg:
    value = arg.value
    if name == "one_minus":
        number = _number(value)
        if number is not None:
            return arg.with_changes(value=_expression(repr(round(1 - number, 12))))
        inner = (
            value
            if isinstance(value, _SIMPLE)
            else value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        )
        return arg.with_changes(
            value=cst.BinaryOperation(cst.Integer("1"), cst.Subtract(), inner)
        )
    if name == "as_tuple":
        if isinstance(value, (cst.Tuple, cst.List)):
            if len(value.elements) != 1:
                raise Untranslatable(
                    "a shape of more than one dimension needs begin_norm_axis; set it by hand"
                )
            return arg
        # An int becomes (n,); a sequence would become a nested tuple, which MindSpore rejects loudly.
        return arg.with_changes(
            value=cst.Tuple([cst.Element(value, comma=cst.Comma())])
        )
    if name == "is_tanh":
        source = literal_source(arg)
        if source is not None:
            return arg.with_changes(
                value=cst.Name(str(ast.literal_eval(source) == "tanh"))
            )
        compared = (
            value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            if not isinstance(value, _SIMPLE)
            else value
        )
        return arg.with_changes(
            value=cst.Comparison(
                compared,
                [cst.ComparisonTarget(cst.Equal(), cst.SimpleString('"tanh"'))],
            )
        )
    if name == "pad_each_side":
        if isinstance(value, (cst.Tuple, cst.List)):
            items = []
            for element in value.elements:
                if not _pure(element.value):
                    raise Untranslatable(
                        "a padding element that calls something; bind it to a name first"
                    )
                items += [element.value, element.value.deep_clone()]
            return arg.with_changes(value=cst.Tuple([cst.Element(v) for v in items]))
        if not _certainly_number(value):
            raise Untranslatable(
                "a padding that is not written out may be a per-dimension tuple, which "
                "MindSpore takes per side (top, bottom, left, right); write the tuple out"
            )
        return arg
    if name == "list_to_tuple":
        if isinstance(value, cst.List):
            elements = list(value.elements)
            if len(elements) == 1:
                elements[0] = elements[0].with_changes(comma=cst.Comma())
            return arg.with_changes(
                value=cst.Tuple(
                    elements,
                    lpar=value.lpar or [cst.LeftParen()],
                    rpar=value.rpar or [cst.RightParen()],
                )
            )
        return arg
    if name == "none_all_axes":
        if isinstance(value, cst.Name) and value.value == "None":
            return arg.with_changes(value=cst.Tuple([]))
        return arg
    if name == "int_to_tuple":
        if isinstance(value, cst.Integer) or (
            isinstance(value, cst.UnaryOperation)
            and isinstance(value.expression, cst.Integer)
        ):
            return arg.with_changes(
                value=cst.Tuple([cst.Element(value, comma=cst.Comma())])
            )
        return arg
    if name == "as_float":
        number = _number(value)
        if isinstance(number, float) and isinstance(value, cst.Float):
            return arg
        if number is not None:
            return arg.with_changes(value=_expression(repr(float(number))))
        return arg.with_changes(value=cst.Call(cst.Name("float"), [cst.Arg(value)]))
    if name == "nonzero":
        if isinstance(value, cst.Comparison):
            return arg  # already a bool tensor
        if not isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
            value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return arg.with_changes(
            value=cst.Comparison(
                value,
                [
                    cst.ComparisonTarget(
                        cst.NotEqual(
                            whitespace_before=cst.SimpleWhitespace(" "),
                            whitespace_after=cst.SimpleWhitespace(" "),
                        ),
                        cst.Integer("0"),
                    )
                ],
            )
        )
    if name == "bool_to_int":
        source = literal_source(arg)
        if source in ("True", "False"):
            return arg.with_changes(value=cst.Integer(str(int(source == "True"))))
        return arg.with_changes(value=cst.Call(cst.Name("int"), [cst.Arg(value)]))
    if name == "written_dtype":
        if isinstance(value, cst.Attribute) and (
            value.attr.value in DTYPE_NAMES or value.attr.value == "dtype"
        ):
            return arg
        raise Untranslatable(
            "a dtype that is not written out may be None, for which torch infers the dtype "
            "from the value"
        )
    raise Untranslatable(f"unknown transform {name}")


# Operators whose result is a number whatever their operands (`+` and `*` also join and repeat
# tuples).
_NUMERIC_OPERATORS = (
    cst.FloorDivide,
    cst.Divide,
    cst.Subtract,
    cst.Modulo,
    cst.Power,
    cst.LeftShift,
    cst.RightShift,
)


def _certainly_number(value: cst.BaseExpression) -> bool:
    """A number written out or computed by arithmetic that only numbers support (`k // 2`)."""
    if isinstance(value, (cst.Integer, cst.Float)):
        return True
    if isinstance(value, cst.UnaryOperation):
        return _certainly_number(value.expression)
    if isinstance(value, cst.BinaryOperation):
        return isinstance(value.operator, _NUMERIC_OPERATORS) or (
            _certainly_number(value.left) and _certainly_number(value.right)
        )
    return (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Name)
        and value.func.value == "int"
    )


class _HasCall(cst.CSTVisitor):
    found = False

    def visit_Call(self, node: cst.Call) -> None:
        self.found = True


def _pure(value: cst.BaseExpression) -> bool:
    """No calls inside: evaluating it twice gives the same value without side effects."""
    visitor = _HasCall()
    value.visit(visitor)
    return not visitor.found


def default_arg(source: str) -> cst.Arg:
    return cst.Arg(_expression(source))


def pack_args(args: list) -> cst.Arg:
    return cst.Arg(cst.Tuple([cst.Element(a.value) for a in args]))


def copy_arg(arg: cst.Arg) -> cst.Arg:
    if not isinstance(arg.value, _SIMPLE) and not _is_literal(arg.value):
        raise Untranslatable(
            "the value is repeated for MindSpore; bind it to a name first"
        )
    return cst.Arg(arg.value.deep_clone())


def translate_args(
    mapping: ApiMapping, args: list[cst.Arg], kwargs: dict[str, cst.Arg]
) -> CallTranslation | Refusal:
    try:
        return translate_call(
            mapping,
            args,
            kwargs,
            literal_source,
            transform_arg,
            default_arg,
            pack_args,
            copy_arg,
        )
    except Untranslatable as error:
        return Refusal("", str(error))


def call_arguments(
    translation: CallTranslation, call: cst.Call | None
) -> list[cst.Arg]:
    """Positional then keyword arguments, as nodes, keeping each argument's own formatting.

    In a call laid out one argument per line with a trailing comma, added arguments get lines of
    their own and the closing comma stays last.
    """
    out: list[cst.Arg] = []
    for arg in translation.args:
        out.append(
            arg.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT, star="")
        )
    for name, arg in translation.kwargs.items():
        if arg.keyword is not None and arg.keyword.value == name:
            out.append(arg)
        else:
            out.append(arg.with_changes(keyword=cst.Name(name), equal=_EQUAL, star=""))
    if not out:
        return out
    original = call.args if call is not None else ()
    closing = original[-1].comma if original else cst.MaybeSentinel.DEFAULT
    if isinstance(closing, cst.Comma):
        kept = {id(a.value) for a in original[:-1]}
        inner = next(
            (
                _plain_comma(a.comma)
                for a in original[:-1]
                if isinstance(a.comma, cst.Comma)
            ),
            cst.Comma(whitespace_after=call.whitespace_before_args),
        )
        body = [
            arg if id(arg.value) in kept else arg.with_changes(comma=inner)
            for arg in out[:-1]
        ]
        return body + [out[-1].with_changes(comma=closing)]
    out[-1] = out[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    for index, arg in enumerate(out[:-1]):
        if not isinstance(arg.comma, cst.Comma):
            out[index] = arg.with_changes(
                comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            )
    return out


def _plain_comma(comma: cst.Comma) -> cst.Comma:
    """The comma without a trailing comment, to separate added arguments."""
    after = comma.whitespace_after
    if isinstance(after, cst.ParenthesizedWhitespace):
        after = after.with_changes(first_line=cst.TrailingWhitespace())
    return comma.with_changes(whitespace_after=after)


def split_call(
    call: cst.Call, placement: frozenset = frozenset()
) -> tuple[list[cst.Arg], dict[str, cst.Arg]] | None:
    """Positional and keyword arguments; None when the call spreads *args or **kwargs, except
    ``**name`` for a name in ``placement`` (a dict of device/dtype only), which is left out."""
    args: list[cst.Arg] = []
    kwargs: dict[str, cst.Arg] = {}
    for arg in call.args:
        if (
            arg.star == "**"
            and isinstance(arg.value, cst.Name)
            and arg.value.value in placement
        ):
            continue
        if arg.star:
            return None
        if arg.keyword is None:
            if kwargs:
                return None
            args.append(arg)
        else:
            kwargs[arg.keyword.value] = arg
    return args, kwargs
