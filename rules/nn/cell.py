"""TM301 Module → Cell and forward → construct; TM302 containers; TM306 layer attribute names."""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.engine import visit
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
from ..api.library_layers import keeps_torch_attributes
from .cell_state import CELL_STATE, EXTRA_STATE, cell_setstate, report_extra_state
from .class_names import named_layer
from .common import MODULE_WORDS, current_class
from .facts import RENAMED_ATTRIBUTES, Facts, cst_kind, facts
from .layer_calls import positional_input
from .layers import CONTAINERS, NO_COUNTERPART, canonical, param_name
from .module_api import with_set_train

# References renamed wherever they occur (bases, calls, isinstance, annotations).
NAME_RENAMES = {
    "torch.nn.Module": "mindspore.nn.Cell",
    "torch.nn.modules.module.Module": "mindspore.nn.Cell",
    **CONTAINERS,
}

# Containers that, as base classes, take the companion class: a subclass of MindSpore's runs
# differently from torch's.
BASE_COMPANIONS = {"mindspore.nn.SequentialCell": "Sequential"}

ATTRIBUTES = define(
    "TM306",
    "Layer attributes take MindSpore's parameter names",
    "Renames the attributes of layers whose kind the file shows (`self.bn = nn.BatchNorm2d(...)`, "
    "`bn = nn.BatchNorm2d(...)`, `model = Net()`): BatchNorm `weight`/`bias`/`running_mean`/`running_var` "
    "→ `gamma`/`beta`/`moving_mean`/`moving_variance`, LayerNorm and GroupNorm `weight`/`bias` → "
    "`gamma`/`beta`, Embedding `weight` → `embedding_table`, PReLU `weight` → `w`. A layer whose kind "
    "cannot be seen keeps its attribute names.",
    "MindSpore's layers register their parameters under these names (`parameters_and_names()` lists "
    "`bn.gamma`, `bn.moving_mean`, `emb.embedding_table`); `self.bn.weight` does not exist on a "
    "`nn.BatchNorm2d` Cell. Dense and Conv2d keep `weight`/`bias` with torch's (out, in, ...) layout.",
    "`self.bn.gamma`, `self.bn.moving_mean`, `self.emb.embedding_table`.",
    examples=(
        Example(
            before="import torch.nn as nn\n\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            "        self.emb = nn.Embedding(10, 4)\n\n    def first(self):\n        return self.emb.weight[0]\n",
            after="import mindspore\nfrom mindspore import nn\n\nclass Net(nn.Cell):\n    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.emb = nn.Embedding(10, 4, embedding_table=mindspore.common.initializer.Normal(1.0))\n\n"
            "    def first(self):\n        return self.emb.embedding_table[0]\n",
        ),
    ),
    family="nn",
)
TRAIN_OVERRIDE = define(
    "TM939",
    "A train() override becomes a set_train() override",
    "Reports a Module's own `train(self, mode=True)` method, renamed `set_train` so that "
    "`net.set_train()` (converted from `net.train()`) still runs it.",
    "torch's `Module.train()` calls `train()` on every submodule, so an override in a submodule runs "
    "when its parent is put in training mode; MindSpore's `set_train()` sets the flag on every sub-cell "
    "without calling their `set_train()` methods.",
    "Call the sub-cell's `set_train(mode)` from the parent's `set_train` where the override must run.",
    severity=WARNING,
)
NO_ATTRIBUTE = define(
    "TM930",
    "Layer attribute without a MindSpore counterpart",
    "Reports attributes of torch layers that MindSpore's layers do not have (`bn.num_batches_tracked`).",
    "MindSpore's BatchNorm keeps no step counter; code that reads it needs another source for the count.",
    "Keep a step counter of your own (`self.steps += 1`) where the count is needed.",
)


@register
class CellRule(Rule):
    meta = RuleMeta(
        id="TM301",
        title="nn.Module becomes nn.Cell, forward becomes construct",
        what="Rewrites `class Net(nn.Module)` to `class Net(nn.Cell)`, renames the `forward` method of "
        "every Module class of the file (also classes that derive from one of them) to `construct`, and "
        "explicit `.forward(` calls on Modules (`self.block.forward(x)`, `super().forward(x)`) to "
        "`.construct(`, and a forward chosen at run time (`self.forward = self.forward_fast`) to "
        "`self.construct = ...`. `super().__init__()` stays: Cell's constructor takes no arguments "
        "either.",
        why="A MindSpore Cell runs its `construct` method when called; a Cell with only a `forward` "
        "method raises when called (seed 002: `nn.Module` is the base of every network, `forward` "
        "defines the computation).",
        use_instead="`class Net(nn.Cell)` with `def construct(self, x):`.",
        examples=(
            Example(
                before="import torch.nn as nn\n\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                "        self.scale = 2.0\n\n    def forward(self, x):\n        return x * self.scale\n\n"
                "class Deeper(Net):\n    def forward(self, x):\n        return super().forward(x) * 2\n",
                after="from mindspore import nn\n\nclass Net(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
                "        self.scale = 2.0\n\n    def construct(self, x):\n        return x * self.scale\n\n"
                "class Deeper(Net):\n    def construct(self, x):\n        return super().construct(x) * 2\n",
            ),
            Example(
                before="from torch.nn import Module\n\nclass Head(Module):\n    def forward(self, x):\n        return x\n\n"
                "def check(m):\n    return isinstance(m, Module)\n",
                after="from mindspore import nn\n\nclass Head(nn.Cell):\n    def construct(self, x):\n        return x\n\n"
                "def check(m):\n    return isinstance(m, nn.Cell)\n",
            ),
        ),
        family="nn",
    )
    stage = API
    order = 50
    triggers = ("torch",)
    methods = frozenset({"forward"})
    # Reads unmarked statements where the nn facts' lines are, which stay parsed.
    unmarked_words = ()
    extra = (ATTRIBUTES, NO_ATTRIBUTE, TRAIN_OVERRIDE, CELL_STATE, EXTRA_STATE)

    def __init__(self) -> None:
        self.ignore: set[int] = set()
        # Base classes of the class statements seen (`class Stem(nn.Sequential)`).
        self.bases: set[int] = set()
        # `nn.ModuleDict` references called with a container among their values
        self.holding: set[int] = set()

    # -- references to torch.nn.Module and the containers -------------------------------------
    def visit_Import(self, node, ctx: ModuleContext) -> bool:
        return False

    def visit_ImportFrom(self, node, ctx: ModuleContext) -> bool:
        return False

    def visit_Attribute(self, node: cst.Attribute, ctx: ModuleContext) -> None:
        self.ignore.add(id(node.attr))

    def visit_ClassDef(self, node: cst.ClassDef, ctx: ModuleContext) -> None:
        self.bases.update(id(base.value) for base in node.bases)

    def visit_Call(self, node: cst.Call, ctx: ModuleContext) -> None:
        # `nn.ModuleDict(dict(h=nn.ModuleList([...])))`: CellDict refuses to hold a container
        if ctx.qualname(node.func) == "torch.nn.ModuleDict" and _holds_container(
            node, ctx
        ):
            self.holding.add(id(node.func))

    @torch_names_only
    def leave_Name(self, original, updated, ctx: ModuleContext):
        # A bare name's qualified name is its alias target (most names are no torch alias).
        if (
            ctx.aliases.get(original.value) not in NAME_RENAMES
            or id(original) in self.ignore
        ):
            return updated
        return self._rename(original, updated, ctx)

    def _rename(self, original, updated, ctx: ModuleContext):
        target = NAME_RENAMES.get(ctx.qualname(original) or "")
        if target is None:
            return updated
        if id(original) in self.holding:
            ctx.applied.add("TM302")
            return ctx.companion("ModuleDict")
        if target in BASE_COMPANIONS and id(original) in self.bases:
            # A subclass runs as torch runs it (library/containers.py says how they differ).
            ctx.applied.add("TM302")
            return ctx.companion(BASE_COMPANIONS[target])
        ctx.applied.add("TM302" if target != "mindspore.nn.Cell" else "TM301")
        return ctx.name(target)

    # -- classes, methods and attributes -----------------------------------------------------
    # Entered statements are handled node by node; a statement the engine does not enter (it
    # mentions no torch API, like most `forward` bodies) is walked here when the ast pass saw
    # something to rename in it.
    def leave_Attribute(self, original, updated, ctx: ModuleContext):
        result = self._rename(original, updated, ctx)
        if result is updated and updated.attr.value == "forward":
            return forward_reference(updated, current_class(ctx), ctx)
        if result is not updated or updated.attr.value not in RENAMED_ATTRIBUTES:
            return result
        return rename_attribute(
            updated,
            ctx,
            facts(ctx),
            current_class(ctx),
            ctx.stack[-1] if ctx.stack else None,
        )

    def leave_AssignTarget(
        self, original, updated: cst.AssignTarget, ctx: ModuleContext
    ):
        return forward_assignment(updated, ctx, current_class(ctx))

    def leave_Call(self, original, updated: cst.Call, ctx: ModuleContext):
        if ctx.qualname(original.func) in _CONTAINER_KEYWORDS:
            return _positional_contents(original, updated, ctx)
        updated = positional_input(original, updated, ctx)
        if (
            not isinstance(updated.func, cst.Attribute)
            or updated.func.attr.value != "forward"
        ):
            return updated
        return construct_call(updated, ctx, facts(ctx), current_class(ctx))

    def _statement(self, original, updated, ctx: ModuleContext):
        info = ctx.statements.get(id(original))
        if info is None or info.relevant or updated is not original:
            return updated
        known = facts(ctx)
        if not known.targets(info.line, info.end_line):
            return updated
        outer = current_class(ctx) if not isinstance(original, cst.ClassDef) else None
        return visit(updated, _Structure(ctx, known, outer))

    def leave_FunctionDef(self, original, updated: cst.FunctionDef, ctx: ModuleContext):
        updated = self._statement(original, updated, ctx)
        if len(ctx.stack) >= 2 and ctx.stack[-1] is original:
            owner = ctx.stack[-2]
            if (
                isinstance(owner, cst.ClassDef)
                and owner.name.value in facts(ctx).classes
            ):
                return module_method(updated, ctx, original)
        return updated

    leave_ClassDef = leave_SimpleStatementLine = _statement
    leave_For = leave_While = leave_If = leave_With = leave_Try = _statement

    def leave_IndentedBlock(
        self, original, updated: cst.IndentedBlock, ctx: ModuleContext
    ):
        known = facts(ctx)
        if not known.constructions or current_class(ctx) is not None:
            return updated
        body = with_set_train(list(updated.body), ctx)
        return updated if body is None else updated.with_changes(body=body)

    def leave_Module(self, original, updated: cst.Module, ctx: ModuleContext):
        if not facts(ctx).constructions:
            return updated
        body = with_set_train(list(updated.body), ctx)
        return updated if body is None else updated.with_changes(body=body)


def module_method(
    updated: cst.FunctionDef, ctx: ModuleContext, original: cst.FunctionDef
) -> cst.FunctionDef:
    """Methods of a Module class that MindSpore calls by another name: forward, train."""
    name = updated.name.value
    if name == "forward":
        ctx.applied.add("TM301")
        return updated.with_changes(name=cst.Name("construct"))
    if name == "__setstate__":
        return cell_setstate(updated, ctx)
    if name in ("get_extra_state", "set_extra_state"):
        report_extra_state(original, ctx)
        return updated
    params = updated.params
    plain = (
        not isinstance(params.star_arg, cst.Param)
        and params.star_kwarg is None
        and not params.kwonly_params
    )
    if (
        name == "train"
        and plain
        and not params.posonly_params
        and 1 <= len(params.params) <= 2
        and all(_mode_param(p) for p in params.params[1:])
    ):
        ctx.applied.add("TM308")
        ctx.report(
            "TM939",
            "`train()` override renamed `set_train()`: MindSpore calls it on this cell only, not from a parent's `set_train()`",
            TRAIN_OVERRIDE.use_instead,
            node=original,
            severity=WARNING,
        )
        return updated.with_changes(name=cst.Name("set_train"))
    return updated


def forward_reference(
    updated: cst.Attribute, class_name: str | None, ctx: ModuleContext
) -> cst.Attribute:
    """`cls.forward`, `self.forward`, `type(self).forward` read or assigned in a Module class →
    `.construct`: the method is named construct there (`forward = cls.forward` in an
    `__init_subclass__` that wraps each subclass's forward)."""
    if updated.attr.value != "forward":
        return updated
    receiver = updated.value
    if _module_class_param(receiver, ctx):
        ctx.applied.add("TM301")
        return updated.with_changes(attr=cst.Name("construct"))
    if class_name is None:
        return updated
    own = (isinstance(receiver, cst.Name) and receiver.value in ("cls", "self")) or (
        isinstance(receiver, cst.Call)
        and isinstance(receiver.func, cst.Name)
        and receiver.func.value == "type"
        and len(receiver.args) == 1
        and isinstance(receiver.args[0].value, cst.Name)
        and receiver.args[0].value.value == "self"
    )
    if not own:
        return updated
    ctx.applied.add("TM301")
    return updated.with_changes(attr=cst.Name("construct"))


def forward_assignment(
    updated: cst.AssignTarget, ctx: ModuleContext, class_name: str | None
) -> cst.AssignTarget:
    """`self.forward = self.forward_fast` in a Module class → `self.construct = ...`: the method
    chosen at run time is the one MindSpore calls, as torch calls the assigned `forward`."""
    target = updated.target
    if (
        isinstance(target, cst.Attribute)
        and target.attr.value == "forward"
        and _module_class_param(target.value, ctx)
    ):
        # `experts_class.forward = forward` in a decorator of Module classes.
        ctx.applied.add("TM301")
        return updated.with_changes(
            target=target.with_changes(attr=cst.Name("construct"))
        )
    if (
        class_name is None
        or not isinstance(target, cst.Attribute)
        or target.attr.value != "forward"
        or not isinstance(target.value, cst.Name)
        or target.value.value != "self"
    ):
        return updated
    ctx.applied.add("TM301")
    return updated.with_changes(target=target.with_changes(attr=cst.Name("construct")))


def _module_class_param(receiver: cst.BaseExpression, ctx: ModuleContext) -> bool:
    """A name the file annotates as a Module class parameter (`experts_class: type[nn.Module]`)."""
    return (
        isinstance(receiver, cst.Name)
        and receiver.value in facts(ctx).module_class_params
    )


def _mode_param(param: cst.Param) -> bool:
    """`mode`, or any parameter defaulting to a bool: the flag of `Module.train(mode=True)`."""
    default = param.default
    return param.name.value == "mode" or (
        isinstance(default, cst.Name) and default.value in ("True", "False")
    )


def construct_call(
    updated: cst.Call, ctx: ModuleContext, known: Facts, class_name: str | None
) -> cst.Call:
    """`x.forward(...)` → `x.construct(...)` when `x` is a Module."""
    func = updated.func
    if not isinstance(func, cst.Attribute) or func.attr.value != "forward":
        return updated
    receiver = func.value
    if (
        isinstance(receiver, cst.Call)
        and isinstance(receiver.func, cst.Name)
        and receiver.func.value == "super"
    ):
        module = class_name is not None
    elif isinstance(receiver, cst.Name) and receiver.value in known.classes:
        module = True
    else:
        module = known.is_module_kind(cst_kind(receiver, known, class_name))
    if not module:
        if isinstance(receiver, cst.Name) and receiver.value in ("self", "cls"):
            return updated
        if ctx.qualname(receiver) is not None or any(a.star for a in updated.args):
            return updated
        # Not known to be a Module: the companion runs a Cell's construct, anything else's forward.
        ctx.applied.add("TM301")
        return cst.Call(
            ctx.companion("call_forward"), [cst.Arg(receiver), *updated.args]
        )
    ctx.applied.add("TM301")
    return updated.with_changes(func=func.with_changes(attr=cst.Name("construct")))


def rename_attribute(
    updated: cst.Attribute,
    ctx: ModuleContext,
    known: Facts,
    class_name: str | None,
    statement: cst.CSTNode | None,
) -> cst.Attribute:
    """`bn.weight` → `bn.gamma` when `bn` is a layer whose MindSpore parameter has another name."""
    attribute = updated.attr.value
    if attribute not in RENAMED_ATTRIBUTES:
        return updated
    kind = cst_kind(updated.value, known, class_name)
    guessed = False
    if kind is None:
        kind = _narrowed(updated.value, ctx)
    if kind is None:
        layer = named_layer(updated.value, attribute, ctx)
        kind = "layer:" + layer if layer else None
    if kind is None:
        kind = cst_kind(
            updated.value, known, class_name, lambda name: _guessable(name, ctx)
        )
        guessed = kind is not None
    if kind is None or not kind.startswith("layer:"):
        return updated
    layer = canonical(kind[6:])
    if attribute in NO_COUNTERPART:
        if param_name(layer, "running_mean"):
            ctx.report(
                "TM930",
                f"`{layer}` has no `{attribute}` in MindSpore",
                NO_COUNTERPART[attribute],
                node=statement,
            )
        return updated
    new = param_name(layer, attribute)
    if new is None or (guessed and keeps_torch_attributes(layer, ctx)):
        # A package builds this layer from the companion class, which answers torch's name.
        return updated
    if guessed:
        ctx.report(
            "TM932",
            f"`.{attribute}` renamed to `.{new}`: the receiver is taken to be this file's Module from its name",
            "Check that the receiver is a Cell.",
            node=statement,
            severity=WARNING,
        )
    ctx.applied.add("TM306")
    return updated.with_changes(attr=cst.Name(new))


def _narrowed(receiver: cst.BaseExpression, ctx: ModuleContext) -> str | None:
    """`layer:<torch class>` for a name inside the body of `if isinstance(name, nn.Conv2d):` (or
    of an `elif` of that form), the way init functions tell layers apart."""
    if not isinstance(receiver, cst.Name):
        return None
    stack = ctx.stack
    for index in range(len(stack) - 2, -1, -1):
        statement, inner = stack[index], stack[index + 1]
        if not isinstance(statement, cst.If):
            continue
        orelse = statement.orelse
        if inner is orelse or (
            isinstance(orelse, cst.Else) and any(inner is s for s in orelse.body.body)
        ):
            continue  # in the branch where the test failed
        test = statement.test
        if (
            isinstance(test, cst.Call)
            and isinstance(test.func, cst.Name)
            and test.func.value == "isinstance"
            and len(test.args) == 2
            and isinstance(test.args[0].value, cst.Name)
            and test.args[0].value.value == receiver.value
        ):
            qualified = ctx.qualname(test.args[1].value)
            return "layer:" + canonical(qualified) if qualified else None
    return None


def _guessable(name: str, ctx: ModuleContext) -> bool:
    return name not in ctx.aliases and bool(MODULE_WORDS.search(name))


@register
class ContainerRule(Rule):
    """Containers are renamed by CellRule's reference pass; this class carries their docs."""

    meta = RuleMeta(
        id="TM302",
        title="Sequential, ModuleList and ModuleDict become SequentialCell, CellList and CellDict",
        what="Renames `nn.Sequential` → `nn.SequentialCell`, `nn.ModuleList` → `nn.CellList`, "
        "`nn.ModuleDict` → `nn.CellDict`, in calls, base classes and `isinstance` checks. A subclass "
        "of `nn.Sequential` derives from the companion `Sequential`, which also runs the layers the "
        "subclass assigns as attributes, as torch does (SequentialCell runs only those given to it).",
        why="These are MindSpore's containers: their cells are registered, so their parameters are "
        "found by `trainable_params()` and saved with the network, with the same `0.weight`-style names "
        "(seed 002: children in a container are registered and managed recursively).",
        use_instead="`nn.SequentialCell(nn.Dense(20, 10), nn.ReLU())`, `nn.CellList([...])`.",
        examples=(
            Example(
                before="import torch.nn as nn\n\nclass Half(nn.Module):\n    def forward(self, x):\n        return x / 2\n\n"
                "layers = nn.ModuleList([Half(), Half()])\nbody = nn.Sequential(Half(), Half())\n"
                "table = nn.ModuleDict({'a': Half()})\nok = isinstance(body, nn.Sequential)\n",
                after="from mindspore import nn\n\nclass Half(nn.Cell):\n    def construct(self, x):\n        return x / 2\n\n"
                "layers = nn.CellList([Half(), Half()])\nbody = nn.SequentialCell(Half(), Half())\n"
                "table = nn.CellDict({'a': Half()})\nok = isinstance(body, nn.SequentialCell)\n",
            ),
        ),
        family="nn",
    )
    stage = API
    order = 50
    # Its handlers are CellRule's.
    unmarked_words = ()


def _holds_container(call: cst.Call, ctx: ModuleContext) -> bool:
    """A ModuleDict built from a dict literal or ``dict(...)`` that has a container
    (``ModuleList``, ``Sequential``, ``ModuleDict``) among its values."""
    if not call.args:
        return False
    given = call.args[0].value
    if isinstance(given, cst.Dict):
        values = [e.value for e in given.elements if isinstance(e, cst.DictElement)]
    elif isinstance(given, cst.Call) and ctx.dotted(given.func) == "dict":
        values = [a.value for a in given.args if a.keyword is not None]
    else:
        return False
    return any(
        isinstance(v, cst.Call) and ctx.qualname(v.func) in CONTAINERS for v in values
    )


class _Structure(cst.CSTTransformer):
    """forward → construct, attribute renames and set_train() inside a statement the engine skipped."""

    def __init__(
        self, ctx: ModuleContext, known: Facts, outer_class: str | None
    ) -> None:
        super().__init__()
        self.ctx = ctx
        self.known = known
        # Innermost last: the Module class name, or None for other classes and functions.
        self.scopes: list[tuple[str, str | None]] = (
            [("class", outer_class)] if outer_class else []
        )
        self.statements: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, _STATEMENTS):
            self.statements.append(node)
        return super().on_visit(node)

    def on_leave(self, original_node, updated_node):
        result = super().on_leave(original_node, updated_node)
        if isinstance(original_node, _STATEMENTS):
            self.statements.pop()
            info = self.ctx.statements.get(id(original_node))
            if (
                info is not None
                and result is not original_node
                and isinstance(result, cst.CSTNode)
            ):
                self.ctx.statements.setdefault(id(result), info)
        return result

    def _class(self) -> str | None:
        for kind, name in reversed(self.scopes):
            if kind == "class":
                return name
        return None

    def leave_IndentedBlock(self, original, updated: cst.IndentedBlock):
        if self._class() is not None or not self.known.constructions:
            return updated
        body = with_set_train(list(updated.body), self.ctx)
        return updated if body is None else updated.with_changes(body=body)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        name = node.name.value
        self.scopes.append(("class", name if name in self.known.classes else None))

    def leave_ClassDef(self, original, updated):
        self.scopes.pop()
        return updated

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scopes.append(("function", None))

    def leave_FunctionDef(self, original, updated):
        self.scopes.pop()
        if self.scopes and self.scopes[-1][0] == "class" and self.scopes[-1][1]:
            return module_method(updated, self.ctx, original)
        return updated

    def leave_Call(self, original, updated: cst.Call):
        updated = positional_input(original, updated, self.ctx, self._class())
        return construct_call(updated, self.ctx, self.known, self._class())

    def leave_AssignTarget(self, original, updated: cst.AssignTarget):
        return forward_assignment(updated, self.ctx, self._class())

    def leave_Attribute(self, original, updated: cst.Attribute):
        statement = self.statements[-1] if self.statements else None
        updated = forward_reference(updated, self._class(), self.ctx)
        return rename_attribute(updated, self.ctx, self.known, self._class(), statement)


_STATEMENTS = (cst.SimpleStatementLine, cst.BaseCompoundStatement)


# torch's containers take their contents under these keywords; CellList and CellDict take
# them positionally only (CellDict reads `modules=` as an entry named "modules").
_CONTAINER_KEYWORDS = {
    "torch.nn.ModuleDict": "modules",
    "torch.nn.ModuleList": "modules",
}


def _positional_contents(original: cst.Call, updated: cst.Call, ctx: ModuleContext):
    keyword = _CONTAINER_KEYWORDS[ctx.qualname(original.func)]
    args = list(updated.args)
    if len(args) != 1 or args[0].keyword is None or args[0].keyword.value != keyword:
        return updated
    ctx.applied.add("TM302")
    return updated.with_changes(
        args=[args[0].with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)]
    )
