"""TM320 torch.save(state_dict, 'f.ckpt') → save_checkpoint; TM321 load_state_dict(torch.load('f.ckpt'))
→ load_param_into_net; TM322 every other save and load through the companion, same file, torch's keys."""

from __future__ import annotations

import ast

import libcst as cst

from ...migrator.aliases import dotted, resolve
from ...migrator.context import CONVERTED_CALLS, ModuleContext
from ...migrator.findings import WARNING
from ...migrator.rule import API, Example, Rule, RuleMeta, define, register
from ..common.ast_nodes import statements, tree_nodes, tree_statements
from ..common.tree import module_tree
from ..nn.common import GUESSED, module_receiver, string_value, tidy_args

CHECKPOINT_SUFFIXES = (".ckpt", ".safetensors")

LOAD = define(
    "TM321",
    "load_state_dict(torch.load('f.ckpt')) becomes load_param_into_net(net, load_checkpoint(p))",
    "Rewrites `model.load_state_dict(torch.load('f.ckpt'))` (also through a name that only feeds "
    "`load_state_dict`) to `mindspore.load_param_into_net(model, mindspore.load_checkpoint(p))`, "
    "dropping `map_location=`, `weights_only=` and `strict=`, where the path is a string ending "
    "with `.ckpt`: the file TM320's `save_checkpoint` wrote under that same name. Other paths go "
    "through the companion (TM322), which reads the file the path names.",
    "`load_checkpoint` reads a `.ckpt` into a dict of Parameters and `load_param_into_net` copies them "
    "into the Cell by name. It reads only `*.ckpt` names, so `torch.load('net.pth')` cannot become "
    "it without reading another file than the original did.",
    "`mindspore.load_param_into_net(net, mindspore.load_checkpoint('net.ckpt'))`.",
    examples=(
        Example(
            before="import torch\n\ndef restore(model):\n    state = torch.load('net.ckpt', map_location='cpu')\n"
            "    model.load_state_dict(state, strict=False)\n",
            after="import mindspore\n\ndef restore(model):\n"
            "    state = mindspore.load_checkpoint('net.ckpt')\n"
            "    # torch2ms: TM932 `.load_state_dict()` converted on a receiver taken to be a Module from its name\n"
            "    mindspore.load_param_into_net(model, state)\n",
            findings=("TM932",),
        ),
    ),
    family="checkpoint",
)
OTHER = define(
    "TM937",
    "torch.save of a whole Module",
    "Reports `torch.save(model, path)` of a Module itself, which becomes the companion's `save`: "
    "torch pickles the object; the companion writes the Cell's parameter values and keeps the Cell "
    "for the run, and `load` in the same run returns a copy holding those values.",
    "A MindSpore checkpoint holds named Parameters; the Cell is built by code and its Parameters "
    "loaded into it.",
    "`mindspore.save_checkpoint(net, path, append_dict={'epoch': epoch})`, and "
    "`mindspore.load_param_into_net(Net(), mindspore.load_checkpoint(path))` to restore.",
)
COMPANION = define(
    "TM322",
    "torch.save/torch.load/state_dict/load_state_dict keep torch's semantics through the companion",
    "Rewrites what TM320/TM321 cannot make a MindSpore checkpoint call: `torch.save(obj, f)` of a "
    "bundle (states, counters, tensors) becomes `ms_aux.save(obj, f)`, `torch.load(f, ...)` becomes "
    "`ms_aux.load(f, ...)`, and `x.state_dict()`/`x.load_state_dict(s, strict)` on a receiver not known "
    "to be a Module (or with arguments TM320/TM321 do not take) become `ms_aux.state_dict(x)`/"
    "`ms_aux.load_state_dict(x, s, strict)`.",
    "The companion keeps torch's meaning when the program runs: a Cell's state is named as torch "
    "names the same layers (`running_mean`, not `moving_mean`), so keys the code reads still match, "
    "and loading takes torch's names or MindSpore's; an optimizer, scheduler or scaler answers with "
    "its own method. `ms_aux.load` also reads the zip files `torch.save` writes, without torch, "
    "rebuilding tensors and plain containers only (torch's `weights_only=True`).",
    "`mindspore.save_checkpoint(net, 'net.ckpt')` and `mindspore.load_param_into_net(net, "
    "mindspore.load_checkpoint('net.ckpt'))` where one Cell's parameters are all that is saved.",
    examples=(
        Example(
            before="import torch\n\ndef resume(model, optimizer, path):\n"
            "    ckpt = torch.load(path, map_location='cpu')\n"
            "    model.load_state_dict(ckpt['model'])\n"
            "    optimizer.load_state_dict(ckpt['optimizer'])\n"
            "    return ckpt['epoch']\n",
            after="import ms_aux\n\ndef resume(model, optimizer, path):\n"
            "    ckpt = ms_aux.load(path, map_location='cpu')\n"
            "    ms_aux.load_state_dict(model, ckpt['model'])\n"
            "    ms_aux.load_state_dict(optimizer, ckpt['optimizer'])\n"
            "    return ckpt['epoch']\n",
        ),
    ),
    family="checkpoint",
)


@register
class CheckpointRule(Rule):
    meta = RuleMeta(
        id="TM320",
        title="torch.save(model.state_dict(), 'f.ckpt') becomes mindspore.save_checkpoint(model, 'f.ckpt')",
        what="Rewrites `torch.save(model.state_dict(), p)` to `mindspore.save_checkpoint(model, p)` "
        "where `p` is a string ending with `.ckpt` (`save_checkpoint` appends the suffix to any "
        "other name, so the file would not be the one the program names: those go through the "
        "companion, TM322), and other `model.state_dict()` calls on Modules to "
        "`model.parameters_dict()`.",
        why="`save_checkpoint` writes every Parameter of the Cell by name, including the non-trainable "
        "ones (BatchNorm's moving statistics, converted buffers), as `state_dict()` holds parameters and "
        "buffers (seed 002).",
        use_instead="`mindspore.save_checkpoint(net, 'net.ckpt')`.",
        examples=(
            Example(
                before="import torch\nimport torch.nn as nn\n\nclass Net(nn.Module):\n    pass\n\nmodel = Net()\n"
                "torch.save(model.state_dict(), 'net.ckpt')\nbest = model.state_dict()\n",
                after="import mindspore\nfrom mindspore import nn\n\nclass Net(nn.Cell):\n    pass\n\nmodel = Net()\n"
                "mindspore.save_checkpoint(model, 'net.ckpt')\nbest = model.parameters_dict()\n",
            ),
            Example(
                before="import torch\n\ndef save(model, opt, path):\n    torch.save({'model': model.state_dict(), 'opt': opt.state_dict()}, path)\n",
                after="import ms_aux\n\ndef save(model, opt, path):\n"
                "    # torch2ms: TM932 `.state_dict()` converted on a receiver taken to be a Module from its name\n"
                "    ms_aux.save({'model': ms_aux.state_dict(model), 'opt': ms_aux.state_dict(opt)}, path)\n",
            ),
        ),
        family="checkpoint",
    )
    stage = API
    order = 50
    methods = frozenset({"state_dict", "load_state_dict"})
    torch_only_methods = frozenset({"state_dict", "load_state_dict"})
    # Reads entered statements; the loaded names from the ast tree.
    unmarked_words = ()
    extra = (LOAD, OTHER, COMPANION)

    def __init__(self) -> None:
        self.loaded_names: set[str] | None = None
        self.torch_loaded: set[str] = set()
        # Names bound to a MindSpore checkpoint this conversion reads (`load_checkpoint`).
        self.checkpoints: set[str] = set()

    def _feeds_only_loading(self, ctx: ModuleContext) -> set[str]:
        """Names bound only to `torch.load(...)` and read only as `load_state_dict`'s argument."""
        if self.loaded_names is None:
            self.loaded_names, self.torch_loaded = _loaded_names(
                module_tree(ctx), ctx.aliases
            )
        return self.loaded_names

    def leave_Call(self, original: cst.Call, updated: cst.Call, ctx: ModuleContext):
        qualified = ctx.qualname(original.func)
        if qualified == "torch.save":
            return self._save(updated, ctx)
        if qualified == "torch.load":
            return self._load(original, updated, ctx)
        func = updated.func
        if not isinstance(func, cst.Attribute) or ctx.qualname(func) is not None:
            return updated
        if (
            isinstance(func.value, cst.Name)
            and func.value.value == ctx.companion_import.module
        ):
            return updated  # a module's function (the companion's own `state_dict`), no method
        if func.attr.value == "load_state_dict":
            return self._load_state_dict(updated, ctx)
        if func.attr.value == "state_dict":
            certainty = module_receiver(func.value, ctx)
            if certainty is None or updated.args or _defines_extra_state(ctx):
                # A Module with its own `get_extra_state` keeps it under `_extra_state` in
                # torch's state_dict; `parameters_dict()` holds Parameters only.
                return _companion_method(updated, "state_dict", ctx)
            if certainty == GUESSED:
                ctx.report(
                    "TM932",
                    "`.state_dict()` converted on a receiver taken to be a Module from its name",
                    "Check that the receiver is a Cell.",
                    severity=WARNING,
                )
            ctx.applied.add("TM320")
            return updated.with_changes(
                func=func.with_changes(attr=cst.Name("parameters_dict"))
            )
        return updated

    def _save(self, call: cst.Call, ctx: ModuleContext) -> cst.Call:
        args = call.args
        if len(args) == 2 and all(a.keyword is None and not a.star for a in args):
            saved = args[0].value
            # `model.state_dict()` was already renamed to `parameters_dict()` on the way up.
            if (
                isinstance(saved, cst.Call)
                and not saved.args
                and isinstance(saved.func, cst.Attribute)
                and saved.func.attr.value in ("state_dict", "parameters_dict")
                and _checkpoint_path(args[1].value) is not None
            ):
                # The file keeps its name only where it ends with `.ckpt`: `save_checkpoint`
                # appends the suffix to any other name.
                ctx.applied.add("TM320")
                return call.with_changes(
                    func=ctx.name("mindspore.save_checkpoint"),
                    args=tidy_args(
                        [args[0].with_changes(value=saved.func.value), args[1]]
                    ),
                )
        if args and module_receiver(args[0].value, ctx) is not None:
            ctx.report(
                "TM937",
                "`torch.save` of a whole Module: the companion writes the Cell's parameter values "
                "and keeps the Cell for this run, so `torch.load` of the file in the same run "
                "gives back a copy holding them, as torch does; unlike torch, another process "
                "cannot rebuild the Cell from the file",
                OTHER.use_instead,
                severity=WARNING,
            )
            ctx.applied.add("TM322")
            return call.with_changes(func=ctx.companion("save"))
        # Anything else (a state_dict saved under another name, a bundle of states, tensors,
        # counters) keeps torch's file semantics: the file the path names, torch's keys.
        ctx.applied.add("TM322")
        if args and not args[0].star:
            saved = args[0].value.visit(_TorchKeyedStates(ctx))
            args = [args[0].with_changes(value=saved), *args[1:]]
        return call.with_changes(func=ctx.companion("save"), args=args)

    def _load(self, original: cst.Call, call: cst.Call, ctx: ModuleContext) -> cst.Call:
        parent = _assigned_name(original, ctx)
        if parent is not None and parent in self._feeds_only_loading(ctx):
            converted = _load_checkpoint(call, ctx)
            if converted is not None:
                self.checkpoints.add(parent)
                return converted
        ctx.applied.add("TM322")
        return call.with_changes(func=ctx.companion("load"))

    def _load_state_dict(self, call: cst.Call, ctx: ModuleContext) -> cst.Call:
        receiver = call.func.value  # type: ignore[union-attr]
        certainty = module_receiver(receiver, ctx)
        positional = [a for a in call.args if a.keyword is None]
        extra = {a.keyword.value for a in call.args if a.keyword is not None}
        if (
            certainty is None
            or len(positional) != 1
            or positional[0].star
            or extra - {"strict", "assign"}
        ):
            return _companion_method(call, "load_state_dict", ctx)
        state = positional[0].value
        self._feeds_only_loading(ctx)
        if any(
            isinstance(n, cst.Name) and n.value in self.torch_loaded - self.loaded_names
            for n in _names(state)
        ):
            # Read by the companion `load` (torch's names, or torch's own file): its keys are
            # matched by the companion too.
            return _companion_method(call, "load_state_dict", ctx)
        if isinstance(state, cst.Call) and _is_load(state, ctx):
            state = _load_checkpoint(state, ctx)
            if state is None:
                return _companion_method(call, "load_state_dict", ctx)
        elif not (
            isinstance(state, cst.Name)
            and (
                state.value in self.checkpoints
                or _own_state(state.value, receiver, ctx)
            )
        ):
            # A state from elsewhere (a function's argument, a file torch wrote) may carry torch's
            # names: the companion takes both naming schemes, and honours `strict`.
            return _companion_method(call, "load_state_dict", ctx)
        if certainty == GUESSED:
            ctx.report(
                "TM932",
                "`.load_state_dict()` converted on a receiver taken to be a Module from its name",
                "Check that the receiver is a Cell.",
                severity=WARNING,
            )
        ctx.applied.add("TM321")
        return cst.Call(
            func=ctx.name("mindspore.load_param_into_net"),
            args=tidy_args([cst.Arg(receiver), cst.Arg(state)]),
        )


def _defines_extra_state(ctx: ModuleContext) -> bool:
    """Whether the module defines a `get_extra_state` method (a fact of the source text)."""
    lines = ctx.lines_with("def get_extra_state")
    return lines is None or bool(lines)


def _own_state(name: str, receiver: cst.BaseExpression, ctx: ModuleContext) -> bool:
    """Whether every binding of ``name`` in the module is ``receiver.state_dict()``: the Cell's
    own state (MindSpore's names, `parameters_dict()`), loaded back into it."""
    text = cst.Module([]).code_for_node(receiver)
    found = False
    for node in statements(ctx, ast.Assign):
        for target in node.targets:
            if not (isinstance(target, ast.Name) and target.id == name):
                continue
            value = node.value
            if not (
                isinstance(value, ast.Call)
                and not value.args
                and not value.keywords
                and isinstance(value.func, ast.Attribute)
                and value.func.attr == "state_dict"
                and ast.unparse(value.func.value) == text
            ):
                return False
            found = True
    return found


def _companion_method(call: cst.Call, name: str, ctx: ModuleContext) -> cst.Call:
    """``ms_aux.<name>(receiver, *args)`` for ``receiver.<name>(*args)``: the companion runs a
    Cell's with torch's names and anything else's own method."""
    if any(a.star for a in call.args):
        return call
    ctx.applied.add("TM322")
    result = cst.Call(
        func=ctx.companion(name),
        args=tidy_args([cst.Arg(call.func.value), *call.args]),  # type: ignore[attr-defined]
    )
    ctx.state.setdefault(CONVERTED_CALLS, set()).add(id(result))
    ctx.keep.append(result)
    return result


def _is_load(call: cst.Call, ctx: ModuleContext) -> bool:
    """`torch.load(...)`, or its companion form once the inner call was converted."""
    if ctx.qualname(call.func) == "torch.load":
        return True
    func = call.func
    return (
        isinstance(func, cst.Attribute)
        and func.attr.value == "load"
        and isinstance(func.value, cst.Name)
        and func.value.value == ctx.companion_import.module
    )


def _load_checkpoint(call: cst.Call, ctx: ModuleContext) -> cst.Call | None:
    """`torch.load(p, map_location=..., weights_only=...)` → `mindspore.load_checkpoint(p)`;
    None in a module with extra state, whose state dicts the companion writes and reads."""
    if _defines_extra_state(ctx):
        return None
    positional = [a for a in call.args if a.keyword is None]
    keywords = {a.keyword.value for a in call.args if a.keyword is not None}
    if (
        len(positional) != 1
        or positional[0].star
        or keywords - {"map_location", "weights_only", "mmap"}
    ):
        return None
    path = _checkpoint_path(positional[0].value)
    if path is None:
        return None
    ctx.applied.add("TM321")
    return cst.Call(func=ctx.name("mindspore.load_checkpoint"), args=[cst.Arg(path)])


def _checkpoint_path(path: cst.BaseExpression) -> cst.BaseExpression | None:
    """The path, where it names a MindSpore checkpoint file: a string ending with `.ckpt`
    (`save_checkpoint` appends the suffix to any other name, and `load_checkpoint` reads no
    other name). Elsewhere the companion reads and writes the file the path names."""
    text = string_value(path)
    if text is not None and text.endswith(CHECKPOINT_SUFFIXES):
        return path
    return None


class _TorchKeyedStates(cst.CSTTransformer):
    """`m.parameters_dict()` (a Module's `state_dict()` converted on the way up) inside what
    `torch.save` writes becomes `ms_aux.state_dict(m)`: the file holds torch's keys, as the
    original's did, for whatever reads it by key."""

    def __init__(self, ctx: ModuleContext) -> None:
        super().__init__()
        self.ctx = ctx

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        func = updated.func
        if (
            updated.args
            or not isinstance(func, cst.Attribute)
            or func.attr.value != "parameters_dict"
        ):
            return updated
        return _companion_method(
            updated.with_changes(func=func.with_changes(attr=cst.Name("state_dict"))),
            "state_dict",
            self.ctx,
        )


def _assigned_name(call: cst.Call, ctx: ModuleContext) -> str | None:
    statement = ctx.stack[-1] if ctx.stack else None
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        small = statement.body[0]
        if (
            isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
            and small.value is call
        ):
            return small.targets[0].target.value
    return None


def _loaded_names(
    tree: ast.Module, aliases: dict[str, str]
) -> tuple[set[str], set[str]]:
    """(names that only carry a state_dict from `torch.load` to `load_state_dict`, all names
    bound to a `torch.load` result)."""
    bound: dict[str, bool] = {}
    for node in tree_statements(tree, ast.Assign):
        for target in node.targets:
            if isinstance(target, ast.Name):
                is_load = (
                    isinstance(node.value, ast.Call)
                    and _resolve(node.value.func, aliases) == "torch.load"
                )
                bound[target.id] = bound.get(target.id, True) and is_load
    fed: dict[str, bool] = {}
    feeding: set[int] = set()
    for node in tree_nodes(tree, ast.Call):
        if isinstance(node.func, ast.Attribute) and node.func.attr == "load_state_dict":
            for arg in node.args[:1]:
                feeding.add(id(arg))
    for node in tree_nodes(tree, ast.Name):
        if isinstance(node.ctx, ast.Load) and node.id in bound:
            fed[node.id] = fed.get(node.id, True) and id(node) in feeding
    loaded = {name for name, only_load in bound.items() if only_load}
    return {name for name in loaded if fed.get(name)}, loaded


def _names(node: cst.CSTNode) -> list[cst.CSTNode]:
    found: list[cst.CSTNode] = []

    class _Collect(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:
            found.append(name)

    node.visit(_Collect())
    return found


def _resolve(node: ast.AST, aliases: dict[str, str]) -> str | None:
    name = dotted(node)
    return resolve(name, aliases) if name else None
