"""TM303 nn.Parameter → mindspore.Parameter; TM304 register_buffer → a non-trainable Parameter."""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.findings import WARNING
from ...migrator.rule import (
    API,
    Example,
    Rule,
    RuleMeta,
    define,
    register,
    torch_names_only,
)
from .common import current_class, keyword, literal_bool, split_args, string_value

PARAMETER_NAMES = ("torch.nn.Parameter", "torch.nn.parameter.Parameter")
BUFFER_NAMES = ("torch.nn.Buffer", "torch.nn.parameter.Buffer")

BUFFER = define(
    "TM304",
    "register_buffer becomes a non-trainable Parameter",
    "Rewrites `self.register_buffer('name', t)` to `self.name = mindspore.Parameter(t, "
    "requires_grad=False)` (through `setattr` when the name is not a literal), and a non-persistent "
    "buffer (`persistent=False`) to a plain attribute; `nn.Buffer(t)` (a buffer declared by "
    "assignment, `self.name = nn.Buffer(t)`) the same way.",
    "A torch buffer is state that is saved with the model but never optimised (seed 002: buffers are "
    "recorded by `state_dict()` and not updated by the optimizer). In MindSpore that is a Parameter with "
    "`requires_grad=False`: `save_checkpoint` writes it (as it writes BatchNorm's `moving_mean`) and "
    "`trainable_params()` leaves it out. MindSpore 2.10's own `Cell.register_buffer` would run, but "
    "`save_checkpoint` does not write its buffers. A non-persistent buffer is not saved, so it is an "
    "attribute.",
    "`self.mask = mindspore.Parameter(mask, requires_grad=False)`.",
    examples=(
        Example(
            before="import torch\nimport torch.nn as nn\n\nclass Norm(nn.Module):\n    def __init__(self, mean):\n"
            "        super().__init__()\n        self.register_buffer('mean', mean)\n"
            "        self.register_buffer('scale', mean * 2, persistent=False)\n",
            after="import mindspore\nfrom mindspore import nn\n\nclass Norm(nn.Cell):\n    def __init__(self, mean):\n"
            "        super().__init__()\n        self.mean = mindspore.Parameter(mean, requires_grad=False)\n"
            "        self.scale = mean * 2\n",
        ),
    ),
    family="nn",
)
REGISTERED = define(
    "TM314",
    "register_parameter becomes an attribute assignment",
    "Rewrites `self.register_parameter('name', p)` to `self.name = p` (through `setattr` when the "
    "name is not a literal).",
    "A Parameter assigned to a Cell attribute is registered under that name, as `register_parameter` "
    "registers it in a Module; `None` (torch's way of saying a layer has no such parameter) is a "
    "plain attribute that code reads as `None`. MindSpore's Cell has no `register_parameter`.",
    "`self.bias = None`; `self.scale = mindspore.Parameter(value)`.",
    examples=(
        Example(
            before="import torch.nn as nn\n\nclass Norm(nn.Module):\n    def __init__(self):\n"
            "        super().__init__()\n        self.register_parameter('bias', None)\n",
            after="from mindspore import nn\n\nclass Norm(nn.Cell):\n    def __init__(self):\n"
            "        super().__init__()\n        self.bias = None\n",
        ),
    ),
    family="nn",
)
BUFFER_REPORT = define(
    "TM931",
    "Buffer kept as a MindSpore buffer, which checkpoints leave out",
    "Reports `register_buffer` calls left as they are: a `None` buffer, a computed `persistent=`, a "
    "buffer registered on another object than `self`. MindSpore 2.10's `Cell.register_buffer` runs "
    "them, but `save_checkpoint` does not write MindSpore buffers.",
    "torch saves a persistent buffer in `state_dict()`; a MindSpore buffer is lost on save and load.",
    "Create the state with a value as a Parameter: `self.name = mindspore.Parameter(value, "
    "requires_grad=False)`.",
    severity=WARNING,
)


@register
class ParameterRule(Rule):
    meta = RuleMeta(
        id="TM303",
        title="nn.Parameter becomes mindspore.Parameter",
        what="Rewrites `nn.Parameter(t)` / `torch.nn.Parameter(t, requires_grad=False)` to "
        "`mindspore.Parameter(t, requires_grad=...)`, and `isinstance(p, nn.Parameter)` checks.",
        why="A Parameter assigned to a Cell attribute is registered under the attribute's name, found by "
        "`trainable_params()` and saved by `save_checkpoint`, as an `nn.Parameter` is in a Module "
        "(seed 002: a Parameter is a Tensor that registers itself when assigned to a Module).",
        use_instead="`self.scale = mindspore.Parameter(ops.ones(3))`.",
        examples=(
            Example(
                before="import torch.nn as nn\n\nclass Scale(nn.Module):\n    def __init__(self, init):\n"
                "        super().__init__()\n        self.scale = nn.Parameter(init)\n"
                "        self.shift = nn.Parameter(data=init, requires_grad=False)\n",
                after="import mindspore\nfrom mindspore import nn\n\nclass Scale(nn.Cell):\n    def __init__(self, init):\n"
                "        super().__init__()\n        self.scale = mindspore.Parameter(init)\n"
                "        self.shift = mindspore.Parameter(default_input=init, requires_grad=False)\n",
            ),
        ),
        family="nn",
    )
    stage = API
    order = 50
    methods = frozenset({"register_buffer", "register_parameter"})
    # Reads the calls it names in `methods` (census uses) and entered statements.
    unmarked_words = ()
    extra = (BUFFER, BUFFER_REPORT, REGISTERED)

    def visit_Import(self, node, ctx) -> bool:
        return False

    def visit_ImportFrom(self, node, ctx) -> bool:
        return False

    def __init__(self) -> None:
        self.ignore: set[int] = set()

    def visit_Attribute(self, node: cst.Attribute, ctx: ModuleContext) -> None:
        self.ignore.add(id(node.attr))

    def visit_Call(self, node: cst.Call, ctx: ModuleContext) -> None:
        if not node.args:
            self.ignore.add(id(node.func))  # torch's empty Parameter(); left to TM900

    @torch_names_only
    def leave_Name(self, original, updated, ctx: ModuleContext):
        # A bare name's qualified name is its alias target (most names are no torch alias).
        if (
            ctx.aliases.get(original.value) not in PARAMETER_NAMES
            or id(original) in self.ignore
        ):
            return updated
        return self._rename(original, updated, ctx)

    @torch_names_only
    def leave_Attribute(self, original, updated, ctx: ModuleContext):
        return self._rename(original, updated, ctx)

    def _rename(self, original, updated, ctx: ModuleContext):
        if id(original) in self.ignore or ctx.qualname(original) not in PARAMETER_NAMES:
            return updated
        ctx.applied.add("TM303")
        return ctx.name("mindspore.Parameter")

    def leave_Call(self, original: cst.Call, updated: cst.Call, ctx: ModuleContext):
        if ctx.qualname(original.func) in BUFFER_NAMES:
            return self._buffer_value(updated, ctx)
        if ctx.qualname(original.func) in PARAMETER_NAMES:
            if not original.args:
                return updated
            args = [
                a.with_changes(keyword=cst.Name("default_input"))
                if a.keyword is not None and a.keyword.value == "data"
                else a
                for a in updated.args
            ]
            return updated.with_changes(args=args)
        return updated

    def _buffer_value(self, call: cst.Call, ctx: ModuleContext) -> cst.BaseExpression:
        """`nn.Buffer(t)` (torch 2.5's buffer declared by assignment, `self.b = nn.Buffer(t)`)
        is what `register_buffer` makes: a non-trainable Parameter, or the tensor itself when
        `persistent=False`."""
        positional, keywords = split_args(call)
        values = positional + [keywords[k] for k in ("data",) if k in keywords]
        if (
            len(values) != 1
            or any(a.star for a in call.args)
            or set(keywords) - {"data", "persistent"}
        ):
            return call
        persistent = (
            literal_bool(keywords["persistent"].value)
            if "persistent" in keywords
            else True
        )
        if persistent is None:
            return call
        ctx.applied.add("TM304")
        data = values[0].value
        if not persistent:
            return data
        return cst.Call(
            func=ctx.name("mindspore.Parameter"),
            args=[
                cst.Arg(
                    value=data,
                    comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")),
                ),
                keyword("requires_grad", cst.Name("False")),
            ],
        )

    # register_buffer is a statement of its own in practice; as a value it is reported.
    def leave_SimpleStatementLine(
        self, original, updated: cst.SimpleStatementLine, ctx: ModuleContext
    ):
        body = []
        changed = False
        for small in updated.body:
            call = small.value if isinstance(small, cst.Expr) else None
            new = (
                self._buffer(call, ctx) or self._parameter(call, ctx)
                if isinstance(call, cst.Call)
                else None
            )
            if new is not None:
                body.append(new.with_changes(semicolon=small.semicolon))
                changed = True
            else:
                body.append(small)
        return updated.with_changes(body=body) if changed else updated

    def _parameter(
        self, call: cst.Call, ctx: ModuleContext
    ) -> cst.BaseSmallStatement | None:
        """`self.register_parameter(name, param)` -> `self.<name> = param`."""
        func = call.func
        if (
            not isinstance(func, cst.Attribute)
            or func.attr.value != "register_parameter"
        ):
            return None
        owner = func.value
        positional, keywords = split_args(call)
        values = positional + [keywords[k] for k in ("name", "param") if k in keywords]
        if (
            len(values) != 2
            or any(a.star for a in call.args)
            or set(keywords) - {"name", "param"}
            or not (
                isinstance(owner, cst.Name)
                and owner.value == "self"
                and current_class(ctx)
            )
        ):
            return None
        ctx.applied.add(REGISTERED.id)
        return _assigned(owner, values[0].value, values[1].value)

    def _buffer(
        self, call: cst.Call, ctx: ModuleContext
    ) -> cst.BaseSmallStatement | None:
        func = call.func
        if not isinstance(func, cst.Attribute) or func.attr.value != "register_buffer":
            return None
        owner = func.value
        positional, keywords = split_args(call)
        values = positional + [keywords[k] for k in ("name", "tensor") if k in keywords]
        if (
            len(values) != 2
            or any(a.star for a in call.args)
            or set(keywords) - {"name", "tensor", "persistent"}
        ):
            return None
        name_arg, tensor_arg = values[0].value, values[1].value
        persistent = (
            literal_bool(keywords["persistent"].value)
            if "persistent" in keywords
            else True
        )
        # A non-persistent `None` is a plain attribute like any non-persistent buffer (the code
        # assigns the tensor later).
        if (
            isinstance(tensor_arg, cst.Name)
            and tensor_arg.value == "None"
            and persistent is not False
        ):
            ctx.report(
                "TM931",
                "`register_buffer` with a `None` value stays a MindSpore buffer",
                BUFFER_REPORT.use_instead,
                severity=WARNING,
            )
            return None
        if persistent is None:
            ctx.report(
                "TM931",
                "`register_buffer` with a computed `persistent=` stays a MindSpore buffer",
                BUFFER_REPORT.use_instead,
                severity=WARNING,
            )
            return None
        if not (
            isinstance(owner, cst.Name) and owner.value == "self" and current_class(ctx)
        ):
            ctx.report(
                "TM931",
                "`register_buffer` on another object than `self` stays a MindSpore buffer",
                BUFFER_REPORT.use_instead,
                severity=WARNING,
            )
            return None
        value = tensor_arg
        if persistent:
            value = cst.Call(
                func=ctx.name("mindspore.Parameter"),
                args=[
                    cst.Arg(
                        value=tensor_arg,
                        comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")),
                    ),
                    keyword("requires_grad", cst.Name("False")),
                ],
            )
        ctx.applied.add("TM304")
        return _assigned(owner, name_arg, value)


def _assigned(
    owner: cst.BaseExpression, name_arg: cst.BaseExpression, value: cst.BaseExpression
) -> cst.BaseSmallStatement:
    """`owner.<name> = value`, or `setattr(owner, name, value)` for a name that is not a literal."""
    name = string_value(name_arg)
    if name is not None and name.isidentifier():
        target = cst.Attribute(value=owner, attr=cst.Name(name))
        return cst.Assign(targets=[cst.AssignTarget(target=target)], value=value)
    return cst.Expr(
        cst.Call(
            func=cst.Name("setattr"),
            args=[
                cst.Arg(
                    owner,
                    comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")),
                ),
                cst.Arg(
                    name_arg,
                    comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")),
                ),
                cst.Arg(value),
            ],
        )
    )
