"""TM413: a tensor formatted as a number (`'{:.4f}'.format(loss)`) gets `.item()`.

torch formats a 0-d tensor with its number's format; a MindSpore tensor refuses any format spec
(`TypeError: unsupported format string passed to Tensor.__format__`). Where the value is certainly
a tensor (see `tensor_names` and `tensor_flow`), the conversion formats its number: `loss.item()`,
which both frameworks give as a Python number. Where it may be a tensor or a number (a name some
binding makes a tensor, a parameter some call passes one to), it becomes `ms_aux.scalar(value)`,
the companion's number of a one-element tensor and the value itself otherwise: right for both.
`%` formatting, `str()` and `{}` without a spec work on MindSpore tensors as they are and are left
alone, as is any value nothing shows to be a tensor.
"""

from __future__ import annotations

import ast
import bisect
import string

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.rule import API, Example, Rule, RuleMeta, register
from ..common.ast_nodes import nodes
from ..nn.layers import is_layer
from . import BY_TORCH_NAME, METHODS
from .tensor_flow import module_tensors
from .tensor_names import Kinds, is_tensor
from .tm401 import _TENSOR_ONLY_METHODS

# Names certainly tensors, and names that may be, in one scope.
_Names = tuple[frozenset[str], frozenset[str]]
# MindSpore namespaces whose functions compute tensors.
_TENSOR_NAMESPACES = ("mindspore.ops.", "mindspore.mint.", "mindspore.numpy.")
_NOT_TENSORS = frozenset({"numel", "rank", "size", "shape", "dtype"})
# Factories outside those namespaces (`torch.tensor`, `torch.from_numpy`).
_TENSOR_FACTORIES = frozenset({"mindspore.tensor", "mindspore.from_numpy"})


def _torch_function(qualified: str) -> bool:
    mapping = BY_TORCH_NAME.get(qualified)
    if mapping is None or mapping.kind != "function" or not mapping.translatable:
        return False
    leaf = qualified.rsplit(".", 1)[1]
    return (
        (
            mapping.mindspore.startswith(_TENSOR_NAMESPACES)
            or mapping.mindspore in _TENSOR_FACTORIES
        )
        and leaf not in _NOT_TENSORS
        and not leaf.startswith("is_")
    )


@register
class NumberFormatRule(Rule):
    meta = RuleMeta(
        id="TM413",
        title="A tensor formatted as a number is formatted through `.item()`",
        what="Adds `.item()` to a value that is certainly a tensor (a torch call's result, a name "
        "bound only to those, a loss `.backward()` was called on, an element of one, a parameter every "
        "call passes one to) where `str.format`, an f-string or `format()` applies a format spec to "
        "it; wraps a value that may be a tensor or a number in the companion's `scalar`.",
        why="torch formats a 0-d tensor as its number; MindSpore's Tensor refuses every format spec "
        "(`TypeError: unsupported format string passed to Tensor.__format__`).",
        use_instead="Format the number: `'{:.4f}'.format(loss.item())`.",
        examples=(
            Example(
                before="import torch\n\ndef report(x):\n    m = torch.mean(x)\n"
                "    print('mean {:.4f}'.format(m), f'{torch.amax(x):.2f}')\n",
                after="from mindspore import ops\n\ndef report(x):\n    m = ops.mean(x)\n"
                "    print('mean {:.4f}'.format(m.item()), f'{ops.amax(x).item():.2f}')\n",
            ),
        ),
        family="api",
    )
    stage = API
    order = 30
    # Reads unmarked statements only at the census's format sites, which stay parsed.
    unmarked_words = ()

    def __init__(self) -> None:
        self.names: dict[int, frozenset[str]] | None = None
        self.possible: dict[int, frozenset[str]] = {}
        self.kinds: Kinds | None = None
        self.tree: ast.Module | None = None
        self.ctx: ModuleContext | None = None

    def visit_Module(self, node: cst.Module, ctx: ModuleContext) -> None:
        tree = ctx.state.get("ast")
        # Which names hold tensors is worked out only for a module that formats with a spec.
        if not isinstance(tree, ast.Module) or not ctx.census.formats:
            return
        self.tree = tree
        self.ctx = ctx
        self.kinds = Kinds(
            lambda name: _torch_function(_qualify(name, ctx)),
            lambda method: method in _TENSOR_ONLY_METHODS,
            lambda method: method in METHODS,
            lambda name: _torch_layer(_qualify(name, ctx)),
        )

    def _tensors(self) -> tuple[dict, dict]:
        if self.names is None:
            found = module_tensors(self.tree, self.kinds, nodes(self.ctx, ast.Name))
            self.names, self.possible = found.certain, found.possible
        return self.names, self.possible

    # -- where formats are ----------------------------------------------------------------
    def leave_Call(self, original: cst.Call, updated: cst.Call, ctx: ModuleContext):
        if self.kinds is None or any(a.star for a in original.args):
            return updated
        if _format_method(original):
            how = self._how(original.func.value, ctx)  # type: ignore[attr-defined]
            if how is None:
                return updated
            ctx.applied.add(self.meta.id)
            return _wrap_receiver(updated, how, ctx)
        fields = _call_fields(original)
        if fields is None:
            return updated
        return self._wrap_args(original, updated, *fields, ctx)

    def leave_FormattedStringExpression(
        self, original, updated: cst.FormattedStringExpression, ctx: ModuleContext
    ):
        if (
            self.kinds is None
            or original.format_spec is None
            or original.conversion is not None
        ):
            return updated
        how = self._how(original.expression, ctx)
        if how is None:
            return updated
        ctx.applied.add(self.meta.id)
        return updated.with_changes(expression=_wrap(updated.expression, how, ctx))

    # -- statements without torch uses, which the engine does not walk ----------------------
    def leave_FunctionDef(self, original, updated: cst.FunctionDef, ctx: ModuleContext):
        if self.kinds is None:
            return updated
        info = ctx.statements.get(id(original))
        line = info.line if info is not None else -1
        if info is not None and not _formats_within(ctx.census.formats, info):
            return updated
        known, possible = self._tensors()
        names = known.get(line, frozenset()), possible.get(line, frozenset())
        if not any(names):
            return updated
        return updated.with_changes(
            body=self._plain_statements(updated.body, names, ctx)
        )

    def leave_Module(self, original, updated: cst.Module, ctx: ModuleContext):
        if self.kinds is None:
            return updated
        known, possible = self._tensors()
        names = known.get(0, frozenset()), possible.get(0, frozenset())
        if not any(names):
            return updated
        # Only the module's own statements that hold a format are walked.
        body = list(updated.body)
        for i, statement in enumerate(body):
            info = ctx.statements.get(id(statement))
            if isinstance(statement, (cst.FunctionDef, cst.ClassDef)) or (
                info is not None and not _formats_within(ctx.census.formats, info)
            ):
                continue
            body[i] = self._plain_statements(statement, names, ctx)
        if all(new is old for new, old in zip(body, updated.body)):
            return updated
        return updated.with_changes(body=body)

    def _plain_statements(self, node, names: _Names, ctx: ModuleContext):
        rule = self

        def how(expression: cst.BaseExpression) -> str | None:
            return rule._how_in(expression, names)

        wrapper = _PlainStatements(ctx, how)
        result = node.visit(wrapper)
        if not wrapper.changed:
            return node
        ctx.applied.add(self.meta.id)
        return result

    def _wrap_args(self, original, updated, positions, keywords, ctx: ModuleContext):
        args = list(updated.args)
        index = 0
        changed = False
        for i, arg in enumerate(original.args):
            if arg.keyword is None:
                wanted = index in positions
                index += 1
            else:
                wanted = arg.keyword.value in keywords
            how = self._how(arg.value, ctx) if wanted else None
            if how is not None:
                args[i] = args[i].with_changes(value=_wrap(args[i].value, how, ctx))
                changed = True
        if not changed:
            return updated
        ctx.applied.add(self.meta.id)
        return updated.with_changes(args=args)

    def _how(self, expression: cst.BaseExpression, ctx: ModuleContext) -> str | None:
        return self._how_in(expression, self._scope_names(ctx))

    def _how_in(self, expression: cst.BaseExpression, names: _Names) -> str | None:
        """ "item" for a tensor, "scalar" for what may be a tensor or a number, else None."""
        code = cst.Module([]).code_for_node(expression)
        try:
            node = ast.parse(f"({code})", mode="eval").body
        except SyntaxError:
            return None
        if is_tensor(node, self.kinds, names[0]):
            return "item"
        if is_tensor(node, self.kinds, names[1]):
            return "scalar"
        return None

    def _scope_names(self, ctx: ModuleContext) -> _Names:
        line = 0
        for statement in reversed(ctx.stack):
            if isinstance(statement, cst.FunctionDef):
                info = ctx.statements.get(id(statement))
                if info is None:
                    return (
                        frozenset(),
                        frozenset(),
                    )  # a function a rule wrote: nothing known
                line = info.line
                break
        known, possible = self._tensors()
        return known.get(line, frozenset()), possible.get(line, frozenset())


def _formats_within(formats: list[int], info) -> bool:
    i = bisect.bisect_left(formats, info.line)
    return i < len(formats) and formats[i] <= info.end_line


def _torch_layer(qualified: str) -> bool:
    mapping = BY_TORCH_NAME.get(qualified)
    return mapping is not None and mapping.kind == "class" and is_layer(qualified)


def _qualify(name: str, ctx: ModuleContext) -> str:
    head, _, rest = name.partition(".")
    target = ctx.aliases.get(head)
    if target is None:
        return ""
    return f"{target}.{rest}" if rest else target


def _has_spec(node: cst.BaseExpression) -> bool:
    value = node.evaluated_value if isinstance(node, cst.SimpleString) else None
    return isinstance(value, str) and value != ""


def _formatted_fields(text: str) -> tuple[set[int], set[str]]:
    """The positional indexes and keywords that `text.format` formats with a spec."""
    positions: set[int] = set()
    keywords: set[str] = set()
    automatic = 0
    try:
        fields = list(string.Formatter().parse(text))
    except ValueError:
        return positions, keywords
    for _, name, spec, conversion in fields:
        if name is None:
            continue
        numbered = name == "" or name.isdigit()
        index = automatic if name == "" else (int(name) if name.isdigit() else None)
        if name == "":
            automatic += 1
        if not spec or conversion is not None:
            continue
        if numbered and index is not None:
            positions.add(index)
        elif name.isidentifier():
            keywords.add(name)
    return positions, keywords


def _wrap(expression: cst.BaseExpression, how: str, ctx: ModuleContext) -> cst.Call:
    if how == "item":
        return _item(expression)
    return cst.Call(ctx.companion("scalar"), [cst.Arg(expression)])


def _wrap_receiver(call: cst.Call, how: str, ctx: ModuleContext) -> cst.Call:
    func = call.func
    assert isinstance(func, cst.Attribute)
    return call.with_changes(func=func.with_changes(value=_wrap(func.value, how, ctx)))


def _item(expression: cst.BaseExpression) -> cst.Call:
    if (
        not isinstance(expression, (cst.Name, cst.Attribute, cst.Call, cst.Subscript))
        and not expression.lpar
    ):
        expression = expression.with_changes(
            lpar=[cst.LeftParen()], rpar=[cst.RightParen()]
        )
    return cst.Call(cst.Attribute(expression, cst.Name("item")))


class _PlainStatements(cst.CSTTransformer):
    """Formats in the statements of one scope that hold no torch use (the engine skips those)."""

    def __init__(self, ctx: ModuleContext, how) -> None:
        super().__init__()
        self.ctx = ctx
        self.how = how
        self.depth = 0  # > 0 inside a statement without torch uses
        self.changed = False

    def _plain(self, node: cst.CSTNode) -> bool:
        info = self.ctx.statements.get(id(node))
        return info is not None and not info.relevant

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            return False  # its own scope
        if isinstance(node, cst.BaseStatement) and self._plain(node):
            self.depth += 1
        return super().on_visit(node)

    def on_leave(self, original, updated):
        if isinstance(original, cst.BaseStatement) and self._plain(original):
            self.depth -= 1
        result = super().on_leave(original, updated)
        # LibCST rebuilds every node it walks: the statements keep their positions.
        info = self.ctx.statements.get(id(original))
        if (
            info is not None
            and isinstance(result, cst.CSTNode)
            and result is not original
        ):
            self.ctx.statements[id(result)] = info
            self.ctx.keep.append(result)
        return result

    def leave_Call(self, original: cst.Call, updated: cst.Call):
        if self.depth <= 0 or any(a.star for a in original.args):
            return updated
        if _format_method(original):
            how = self.how(original.func.value)  # type: ignore[attr-defined]
            if how is None:
                return updated
            self.changed = True
            return _wrap_receiver(updated, how, self.ctx)
        fields = _call_fields(original)
        if fields is None:
            return updated
        positions, keywords = fields
        args = list(updated.args)
        index = 0
        for i, arg in enumerate(original.args):
            if arg.keyword is None:
                wanted = index in positions
                index += 1
            else:
                wanted = arg.keyword.value in keywords
            how = self.how(arg.value) if wanted else None
            if how is not None:
                args[i] = args[i].with_changes(
                    value=_wrap(args[i].value, how, self.ctx)
                )
                self.changed = True
        return updated.with_changes(args=args)

    def leave_FormattedStringExpression(self, original, updated):
        if (
            self.depth <= 0
            or original.format_spec is None
            or original.conversion is not None
        ):
            return updated
        how = self.how(original.expression)
        if how is None:
            return updated
        self.changed = True
        return updated.with_changes(expression=_wrap(updated.expression, how, self.ctx))


def _format_method(call: cst.Call) -> bool:
    """`value.__format__('.2f')`: the receiver formatted with a spec."""
    func = call.func
    return (
        isinstance(func, cst.Attribute)
        and func.attr.value == "__format__"
        and len(call.args) == 1
        and call.args[0].keyword is None
        and _has_spec(call.args[0].value)
    )


def _call_fields(call: cst.Call) -> tuple[set[int], set[str]] | None:
    """The arguments a `format(...)` or `'...'.format(...)` call formats with a spec."""
    func = call.func
    if isinstance(func, cst.Name) and func.value == "format":
        if len(call.args) == 2 and _has_spec(call.args[1].value):
            return {0}, set()
        return None
    if not (isinstance(func, cst.Attribute) and func.attr.value == "format"):
        return None
    template = func.value
    if not isinstance(template, (cst.SimpleString, cst.ConcatenatedString)):
        return None
    text = template.evaluated_value
    return _formatted_fields(text) if isinstance(text, str) else None
