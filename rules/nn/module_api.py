"""TM305 parameters()/named_parameters(); TM308 train()/eval() → set_train, and torch's training default."""

from __future__ import annotations

import libcst as cst

from ...migrator.context import CONVERTED_CALLS, ModuleContext
from ...migrator.findings import WARNING
from ...migrator.rule import API, Example, Rule, RuleMeta, define, register
from .common import GUESSED, KNOWN, method, module_receiver, receiver_kind, split_args
from .facts import facts
from .hooks import HOOK_ARGUMENTS, HOOKS, hook_call
from .layers import is_layer

GUESS = define(
    "TM932",
    "Receiver taken to be a Module from its name",
    "Reports a Module method call that was converted although the file does not show that its receiver "
    "is a Module; only its name (`model`, `net`, `encoder` ...) says so.",
    "`model.eval()` is a Module call in practice, but a receiver of another type would now call a "
    "method it lacks.",
    "Check that the receiver is a Cell; annotate or construct it in the file to make this certain.",
    severity=WARNING,
)
NAMED = define(
    "TM933",
    "parameters_and_names() also yields non-trainable Parameters",
    "Reports `named_parameters()` on a Module that holds statistics or buffers: its MindSpore form also "
    "yields them (`bn.moving_mean`), under MindSpore's names.",
    "In MindSpore, BatchNorm statistics and converted buffers are Parameters with requires_grad=False.",
    "Filter with `if p.requires_grad`, or iterate `net.trainable_params()` for the trainable ones.",
    severity=WARNING,
)
FROZEN = define(
    "TM938",
    "trainable_params() leaves out frozen parameters",
    "Reports `parameters()` converted to `trainable_params()` in a file that freezes parameters "
    "(`requires_grad=False`): torch's `parameters()` still yields them, MindSpore's "
    "`trainable_params()` does not.",
    "Optimizers get the same updates either way (a frozen parameter has no gradient), but code that "
    "counts or re-enables parameters sees fewer of them.",
    "`net.get_parameters()` yields every Parameter, including BatchNorm statistics and buffers; "
    "`net.untrainable_params()` the frozen ones.",
    severity=WARNING,
)
TRAVERSAL = define(
    "TM309",
    "modules()/children() become cells_and_names()/cells()",
    "Rewrites `m.named_modules()` → `m.cells_and_names()`, `m.modules()` → `(cell for _, cell in "
    "m.cells_and_names())`, `m.children()` → `m.cells()` and `m.named_children()` → "
    "`m.name_cells().items()`.",
    "A Cell walks its sub-cells with these methods; `cells_and_names()` yields the Cell itself first "
    "under the name '' and each shared sub-cell once, as `named_modules()` does (seed 002: `modules()` "
    "yields all submodules, `children()` the direct ones).",
    "`for name, cell in net.cells_and_names():`; `for cell in net.cells():`.",
    examples=(
        Example(
            before="import torch.nn as nn\n\nclass Net(nn.Module):\n    def init(self):\n        for m in self.modules():\n"
            "            print(m)\n        return list(self.children()), dict(self.named_children())\n",
            after="from mindspore import nn\n\nclass Net(nn.Cell):\n    def init(self):\n"
            "        for m in (cell for _, cell in self.cells_and_names()):\n"
            "            print(m)\n        return list(self.cells()), dict(self.name_cells().items())\n",
        ),
    ),
    family="nn",
)
MODE = define(
    "TM308",
    "train()/eval() become set_train(); a new Module starts in training mode",
    "Rewrites `model.train()` → `model.set_train()`, `model.train(False)` → `model.set_train(False)`, "
    "`model.eval()` → `model.set_train(False)`, and adds `model.set_train()` after a Module that has "
    "BatchNorm or Dropout layers is constructed (`model = Net()`), unless the next statement sets the mode.",
    "A torch Module is created in training mode; a MindSpore Cell is created with `training=False`, so "
    "without `set_train()` its BatchNorm would normalise with the moving statistics and its Dropout "
    "would do nothing while the torch original trains (seed 002: `eval()` turns Dropout and BatchNorm "
    "updates off, `train(mode=True)` turns them on).",
    "`net.set_train()` before training, `net.set_train(False)` before evaluation.",
    examples=(
        Example(
            before="import torch.nn as nn\n\nmodel = nn.Sequential(nn.BatchNorm1d(3))\nmodel.eval()\nmodel.train()\n",
            after="from mindspore import nn\n\nmodel = nn.SequentialCell(nn.BatchNorm1d(3))\nmodel.set_train(False)\nmodel.set_train()\n",
        ),
        Example(
            before="import torch.nn as nn\n\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            "        self.drop = nn.Dropout(0.5)\n\nnet = Net()\nout = net\n",
            after="from mindspore import nn\n\nclass Net(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
            "        self.drop = nn.Dropout(p=0.5)\n\nnet = Net()\nnet.set_train()\nout = net\n",
        ),
    ),
    family="nn",
)


BUFFERS = define(
    "TM958",
    "buffers() counts the parameters this file freezes",
    "Reports `buffers()`/`named_buffers()` (converted through the companion) in a file that sets "
    "`requires_grad=False`: a converted buffer is a Parameter that does not require a gradient, so "
    "a parameter frozen by hand is counted among the buffers, and left out of the companion's "
    "`named_parameters` with torch's arguments.",
    "torch keeps buffers and parameters apart; MindSpore's checkpoints only hold Parameters, so "
    "the conversion makes buffers Parameters with `requires_grad=False`.",
    "Name the buffers you mean (`[net.mean, net.scale]`), or filter `net.get_parameters()` by name.",
    severity=WARNING,
)
RESET = define(
    "TM315",
    "reset_parameters() of a layer goes through the companion",
    "Rewrites `m.reset_parameters()` on any receiver but `self`, `cls` and `super()` to "
    "`ms_aux.reset_parameters(m)`.",
    "torch's built-in layers re-initialise themselves with `reset_parameters()`; the MindSpore "
    "layers they become (`nn.Dense`, `nn.BatchNorm2d`, `nn.LayerNorm`) have no such method. The "
    "companion runs the object's own method where its class has one, and torch's initialisation "
    "for a MindSpore layer.",
    "`ms_aux.reset_parameters(m)`; or set the values with `m.gamma.set_data(...)`.",
    examples=(
        Example(
            before="import torch.nn as nn\n\n\ndef init(m):\n    if isinstance(m, nn.LayerNorm):\n"
            "        m.reset_parameters()\n",
            after="from mindspore import nn\nimport ms_aux\n\n\ndef init(m):\n"
            "    if isinstance(m, nn.LayerNorm):\n        ms_aux.reset_parameters(m)\n",
        ),
    ),
    family="nn",
)


# Module methods that cast every floating-point parameter and buffer (tensors have them too).
_CASTS = frozenset({"float", "half", "double", "bfloat16"})


def _constructed_layer(call: cst.Call, ctx: ModuleContext) -> bool:
    """`nn.Linear(3, 1).double()`: the method's receiver is a torch layer built right there."""
    receiver = call.func.value if isinstance(call.func, cst.Attribute) else None
    return isinstance(receiver, cst.Call) and is_layer(
        ctx.qualname(receiver.func) or ""
    )


@register
class ParametersRule(Rule):
    meta = RuleMeta(
        id="TM305",
        title="parameters() becomes trainable_params(), named_parameters() parameters_and_names()",
        what="Rewrites `model.parameters()` → `model.trainable_params()` (as in "
        "`optim.SGD(model.parameters(), lr=0.1)`), and `model.named_parameters()` → "
        "`model.parameters_and_names()`, on receivers the file shows to be Modules.",
        why="A Cell lists its trainable Parameters with `trainable_params()`, which is what a torch "
        "optimizer receives from `parameters()` (BatchNorm statistics are not trainable in either "
        "framework). MindSpore's optimizers need unique Parameter names: when one optimizer gets the "
        "parameters of several separately built Cells (`list(enc.parameters()) + list(dec.parameters())`), "
        "`enc.update_parameters_name('enc.')` is added before it, which also prefixes their checkpoint "
        "names. `parameters_and_names()` yields (name, Parameter) pairs like `named_parameters()` "
        "(seed 002), but also the non-trainable ones (TM933).",
        use_instead="`optim.Adam(net.trainable_params(), lr=1e-3)`; `for name, p in net.parameters_and_names():`.",
        examples=(
            Example(
                before="import torch.nn as nn\n\nclass Net(nn.Module):\n    pass\n\nmodel = Net()\nparams = list(model.parameters())\n"
                "for name, p in model.named_parameters():\n    print(name)\n",
                after="from mindspore import nn\n\nclass Net(nn.Cell):\n    pass\n\nmodel = Net()\nparams = list(model.trainable_params())\n"
                "for name, p in model.parameters_and_names():\n    print(name)\n",
            ),
        ),
        family="nn",
    )
    stage = API
    order = 50
    methods = frozenset(
        {
            "parameters",
            "named_parameters",
            "train",
            "eval",
            "modules",
            "named_modules",
            "children",
            "named_children",
            "add_module",
            "register_module",
            "get_submodule",
            "get_parameter",
            "register_parameter",
            "buffers",
            "named_buffers",
            *_CASTS,
            *HOOKS,
        }
    )
    # The program's own layers have `reset_parameters` too: a call is no torch use of its own.
    watched_methods = frozenset({"reset_parameters"})
    torch_only_methods = frozenset({"named_parameters", "eval"})
    # Reads entered statements; the constructions it follows are in the nn facts' lines.
    unmarked_words = ()
    extra = (GUESS, NAMED, MODE, FROZEN, TRAVERSAL, RESET, BUFFERS, HOOK_ARGUMENTS)

    def __init__(self) -> None:
        # Cells whose parameters one optimizer receives together, seen in the current statement.
        self.prefixed: list[str] = []

    def visit_SimpleStatementLine(self, node, ctx: ModuleContext) -> None:
        self.prefixed = []

    def leave_SimpleStatementLine(self, original, updated, ctx: ModuleContext):
        if not self.prefixed:
            return updated
        names, self.prefixed = self.prefixed, []
        lines = []
        for index, name in enumerate(names):
            call = method(
                cst.Name(name),
                "update_parameters_name",
                [cst.Arg(cst.SimpleString(f'"{name}."'))],
            )
            line = cst.SimpleStatementLine(
                [cst.Expr(call)],
                leading_lines=updated.leading_lines if index == 0 else (),
            )
            ctx.copy_position(line, original)
            lines.append(line)
        ctx.applied.add("TM305")
        return cst.FlattenSentinel([*lines, updated.with_changes(leading_lines=())])

    def _optimizer(
        self, original: cst.Call, updated: cst.Call, ctx: ModuleContext
    ) -> None:
        """MindSpore's optimizers need unique Parameter names; the Parameters of separately built
        Cells are all called `weight`, `bias`..., so each such Cell gets its name as a prefix."""
        receivers: list[str] = []
        for node in _calls(updated):
            func = node.func
            if (
                isinstance(func, cst.Attribute)
                and func.attr.value in ("trainable_params", "parameters")
                and isinstance(func.value, cst.Name)
                and func.value.value not in receivers
            ):
                receivers.append(func.value.value)
        if (
            len(receivers) > 1
            and ctx.stack
            and isinstance(ctx.stack[-1], cst.SimpleStatementLine)
        ):
            self.prefixed = [
                r for r in receivers if r not in self.prefixed
            ] + self.prefixed

    def leave_Call(self, original: cst.Call, updated: cst.Call, ctx: ModuleContext):
        qualified = ctx.qualname(original.func) or ""
        if qualified.startswith("torch.optim.") and ".lr_scheduler" not in qualified:
            self._optimizer(original, updated, ctx)
            return updated
        func = updated.func
        if not isinstance(func, cst.Attribute):
            return updated
        name = func.attr.value
        if name == "reset_parameters":
            return updated if ctx.qualname(func) is not None else _reset(updated, ctx)
        if name not in self.methods or ctx.qualname(func) is not None:
            return updated
        receiver = func.value
        if (
            isinstance(receiver, cst.Name)
            and receiver.value == ctx.companion_import.module
        ):
            return updated  # the companion's own function (`ms_aux.register_parameter`)
        certainty = module_receiver(receiver, ctx)
        if certainty is None and name in _CASTS and _constructed_layer(original, ctx):
            certainty = KNOWN  # `nn.ConvTranspose1d(4, 5, 3).double()`
        if certainty is None and name in _MODULE_ONLY:
            certainty = GUESSED  # a method only torch's Module has
        if certainty is None and name == "eval" and not updated.args:
            # The companion switches a Cell to inference and runs anything else's own `eval()`.
            new = cst.Call(func=ctx.companion("eval_mode"), args=[cst.Arg(receiver)])
            ctx.state.setdefault(CONVERTED_CALLS, set()).add(id(new))
            ctx.keep.append(new)
            ctx.applied.add("TM308")
            return new
        if certainty is None:
            return updated
        if name == "parameters":
            new = updated.with_changes(
                func=func.with_changes(attr=cst.Name("trainable_params"))
            )
            rule = "TM305"
            if facts(ctx).freezes:
                ctx.report(
                    "TM938",
                    "`trainable_params()` leaves out the parameters this file freezes",
                    FROZEN.use_instead,
                    severity=WARNING,
                )
        elif name == "named_parameters":
            new = self._named(updated, ctx)
            if new is None:
                new = _members_call("named_parameters", receiver, updated, ctx)
            if new is None:
                return updated
            rule = "TM305"
            if certainty == KNOWN and facts(ctx).has_buffers(
                receiver_kind(receiver, ctx)
            ):
                ctx.report(
                    "TM933",
                    "`parameters_and_names()` also yields the non-trainable statistics and buffers",
                    NAMED.use_instead,
                    severity=WARNING,
                )
        elif name in _CASTS:
            if certainty != KNOWN or updated.args:
                return updated  # a tensor has these methods too
            new = cst.Call(
                func=ctx.companion("module_cast"),
                args=[cst.Arg(receiver), cst.Arg(cst.SimpleString(f'"{name}"'))],
            )
            rule = "TM309"
        elif name in _BUFFER_METHODS:
            new = _members_call(_BUFFER_METHODS[name], receiver, updated, ctx)
            if new is None:
                return updated
            rule = "TM309"
        elif name in ("add_module", "register_module"):
            if any(
                a.star == "**"
                or (a.keyword is not None and a.keyword.value not in ("name", "module"))
                for a in updated.args
            ):
                return updated
            # The companion registers the named sub-cell as torch does (see its docstring).
            new = cst.Call(
                func=ctx.companion("add_module"),
                args=[cst.Arg(receiver), *updated.args],
            )
            rule = "TM309"
        elif name in _COMPANION_METHODS:
            if name == "register_parameter" and _is_self(receiver):
                return updated  # TM314 writes `self.<name> = param`
            new = cst.Call(
                func=ctx.companion(name), args=[cst.Arg(receiver), *updated.args]
            )
            rule = "TM309"
        elif name in HOOKS:
            new = hook_call(updated, name)
            if isinstance(new, str):
                ctx.report(HOOK_ARGUMENTS.id, new, HOOK_ARGUMENTS.use_instead)
                return updated
            if new is None:
                return updated
            rule = "TM309"
        elif name in TRAVERSALS:
            if updated.args:
                return updated
            new = _traversal(receiver, name)
            rule = "TM309"
        else:
            new = self._mode(updated, name)
            if new is None:
                return updated
            rule = "TM308"
        if certainty == GUESSED:
            ctx.report(
                "TM932",
                f"`.{name}()` converted on a receiver taken to be a Module from its name",
                GUESS.use_instead,
                severity=WARNING,
            )
        ctx.applied.add(rule)
        return new

    def _named(self, call: cst.Call, ctx: ModuleContext) -> cst.Call | None:
        renames = {"prefix": "name_prefix", "recurse": "expand"}
        if len([a for a in call.args if a.keyword is None]) > len(renames):
            return None  # remove_duplicate: the companion's form
        args = []
        for arg in call.args:
            if arg.star or (
                arg.keyword is not None and arg.keyword.value not in renames
            ):
                return None
            if arg.keyword is not None:
                arg = arg.with_changes(keyword=cst.Name(renames[arg.keyword.value]))
            args.append(arg)
        return call.with_changes(
            func=call.func.with_changes(attr=cst.Name("parameters_and_names")),
            args=args,
        )

    def _mode(self, call: cst.Call, name: str) -> cst.Call | None:
        _, keywords = split_args(call)
        if name == "eval":
            if call.args:
                return None
            args = [cst.Arg(cst.Name("False"))]
        else:
            if (
                len(call.args) > 1
                or set(keywords) - {"mode"}
                or any(a.star for a in call.args)
            ):
                return None
            args = [
                a.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)
                for a in call.args
            ]
        return call.with_changes(
            func=call.func.with_changes(attr=cst.Name("set_train")), args=args
        )


def _reset(call: cst.Call, ctx: ModuleContext) -> cst.BaseExpression:
    """`m.reset_parameters()` -> `ms_aux.reset_parameters(m)`; the class's own calls
    (`self.`, `super().`) stay."""
    receiver = call.func.value  # type: ignore[attr-defined]
    if (
        call.args
        or (isinstance(receiver, cst.Name) and receiver.value in ("self", "cls"))
        or (
            isinstance(receiver, cst.Call)
            and isinstance(receiver.func, cst.Name)
            and receiver.func.value == "super"
        )
    ):
        return call
    new = cst.Call(func=ctx.companion("reset_parameters"), args=[cst.Arg(receiver)])
    ctx.state.setdefault(CONVERTED_CALLS, set()).add(id(new))
    ctx.keep.append(new)
    ctx.applied.add(RESET.id)
    return new


def _calls(node: cst.CSTNode) -> list[cst.Call]:
    found: list[cst.Call] = []

    class _Collect(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            found.append(call)

    node.visit(_Collect())
    return found


TRAVERSALS = frozenset({"modules", "named_modules", "children", "named_children"})
# Methods no other common object has: any receiver is taken to be a Module (reported, TM932).
_MODULE_ONLY = frozenset(
    {
        "named_parameters",
        "buffers",
        "named_buffers",
        "add_module",
        "register_module",
        "named_children",
        "named_modules",
        "get_submodule",
        "get_parameter",
        "register_parameter",
        *HOOKS,
    }
)
# Module methods a Cell lacks, served by the companion function of the same name, which takes
# the module first.
# torch's buffers are Parameters with requires_grad=False after TM304, which MindSpore's own
# `buffers()` does not yield: the companion's walks with torch's arguments.
_BUFFER_METHODS = {"buffers": "module_buffers", "named_buffers": "named_buffers"}
_MEMBER_PARAMS = {
    "named_parameters": ("prefix", "recurse", "remove_duplicate"),
    "named_buffers": ("prefix", "recurse", "remove_duplicate"),
    "module_buffers": ("recurse",),
}


def _members_call(
    entry: str, receiver: cst.BaseExpression, call: cst.Call, ctx: ModuleContext
) -> cst.Call | None:
    """``ms_aux.<entry>(receiver, ...)`` with torch's arguments, which the entry takes in
    torch's order; None for arguments it does not know."""
    params = _MEMBER_PARAMS[entry]
    positional = [a for a in call.args if a.keyword is None]
    if (
        any(a.star for a in call.args)
        or len(positional) > len(params)
        or any(
            a.keyword is not None and a.keyword.value not in params for a in call.args
        )
    ):
        return None
    if facts(ctx).freezes:
        ctx.report(
            BUFFERS.id,
            "a converted buffer is a Parameter with requires_grad=False, and this file freezes "
            "parameters: the companion counts those among the buffers",
            BUFFERS.use_instead,
            severity=WARNING,
        )
    return cst.Call(func=ctx.companion(entry), args=[cst.Arg(receiver), *call.args])


_COMPANION_METHODS = frozenset({"get_submodule", "get_parameter", "register_parameter"})


def _is_self(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "self"


def _traversal(receiver: cst.BaseExpression, name: str) -> cst.BaseExpression:
    if name == "named_modules":
        return method(receiver, "cells_and_names")
    if name == "children":
        return method(receiver, "cells")
    if name == "named_children":
        return method(method(receiver, "name_cells"), "items")
    pairs = method(receiver, "cells_and_names")
    target = cst.Tuple(
        [cst.Element(cst.Name("_")), cst.Element(cst.Name("cell"))], lpar=[], rpar=[]
    )
    return cst.GeneratorExp(
        elt=cst.Name("cell"), for_in=cst.CompFor(target=target, iter=pairs)
    )


def with_set_train(body: list, ctx: ModuleContext) -> list | None:
    """``body`` with ``name.set_train()`` after each statement that builds a mode-dependent Module,
    unless the next statement sets the mode; None when nothing is added."""
    known = facts(ctx)
    out: list = []
    added = False
    for index, statement in enumerate(body):
        out.append(statement)
        target = _constructed(statement, known)
        if target is None:
            continue
        following = body[index + 1] if index + 1 < len(body) else None
        if following is not None and _sets_mode(following, target):
            continue
        line = cst.SimpleStatementLine(
            [cst.Expr(method(cst.Name(target), "set_train"))]
        )
        ctx.copy_position(line, statement)
        out.append(line)
        added = True
    if added:
        ctx.applied.add("TM308")
    return out if added else None


def _constructed(statement: cst.CSTNode, known) -> str | None:
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if not (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
    ):
        return None
    target = small.targets[0].target.value
    kind = known.names.get(target)
    if (
        kind is None
        or not known.mode_dependent(kind)
        or not _constructs(small.value, known)
    ):
        return None
    return target


def _constructs(value: cst.BaseExpression, known) -> bool:
    """`Net(...)`, `nn.Sequential(...)`, `Net().to(device)`: an expression that builds a Module."""
    while (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value in ("to", "cuda", "cpu", "float", "double")
    ):
        value = value.func.value
    if not isinstance(value, cst.Call):
        return False
    if isinstance(value.func, cst.Name) and value.func.value in known.classes:
        return True
    name = ModuleContext.dotted(value.func)
    return name is not None and name.rsplit(".", 1)[-1][:1].isupper()


def _sets_mode(statement: cst.CSTNode, target: str) -> bool:
    if not isinstance(statement, cst.SimpleStatementLine) or not statement.body:
        return False
    small = statement.body[0]
    if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)):
        return False
    func = small.value.func
    return (
        isinstance(func, cst.Attribute)
        and func.attr.value in ("set_train", "train", "eval")
        and isinstance(func.value, cst.Name)
        and func.value.value == target
    )
