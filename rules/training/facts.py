"""Module-wide facts the training rules need: which names are optimizers, schedulers, loss scalers
and models, which parameters each optimizer holds, and which models are free of side effects."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ...migrator.aliases import dotted, resolve, statements
from ..common.ast_nodes import tree_nodes, tree_statements

# Modules whose functions compute on data only (never on model parameters).
DATA_MODULES = frozenset({"numpy", "random", "math"})
SCALER_CLASSES = frozenset(
    {
        "torch.cuda.amp.GradScaler",
        "torch.amp.GradScaler",
        "torch.cpu.amp.GradScaler",
        "torch.amp.grad_scaler.GradScaler",
    }
)
MODEL_METHODS = frozenset(
    {
        "parameters",
        "zero_grad",
        "train",
        "eval",
        "named_parameters",
        "state_dict",
        "load_state_dict",
        "modules",
        "children",
    }
)
# Layers and functions that keep no state and draw no random numbers: running them twice is harmless.
PURE_LAYERS = frozenset(
    [
        "Linear",
        "Bilinear",
        "Conv1d",
        "Conv2d",
        "Conv3d",
        "ConvTranspose1d",
        "ConvTranspose2d",
        "ConvTranspose3d",
        "ReLU",
        "ReLU6",
        "LeakyReLU",
        "PReLU",
        "ELU",
        "SELU",
        "CELU",
        "GELU",
        "SiLU",
        "Mish",
        "Tanh",
        "Sigmoid",
        "Hardtanh",
        "Hardsigmoid",
        "Hardswish",
        "Softplus",
        "Softsign",
        "Softmax",
        "LogSoftmax",
        "Flatten",
        "Unflatten",
        "Identity",
        # Containers are as pure as what they hold, which the class name does not tell.
        "Embedding",
        "LayerNorm",
        "GroupNorm",
        "MaxPool1d",
        "MaxPool2d",
        "MaxPool3d",
        "AvgPool1d",
        "AvgPool2d",
        "AvgPool3d",
        "AdaptiveAvgPool1d",
        "AdaptiveAvgPool2d",
        "AdaptiveMaxPool2d",
        "Upsample",
        "ZeroPad2d",
        "ConstantPad2d",
        "Parameter",
        "Module",
    ]
)
PURE_FUNCTIONS = frozenset(
    [
        "relu",
        "relu6",
        "leaky_relu",
        "elu",
        "selu",
        "gelu",
        "silu",
        "tanh",
        "sigmoid",
        "softmax",
        "log_softmax",
        "softplus",
        "linear",
        "conv1d",
        "conv2d",
        "max_pool2d",
        "avg_pool2d",
        "adaptive_avg_pool2d",
        "flatten",
        "cat",
        "stack",
        "matmul",
        "mm",
        "bmm",
        "add",
        "mul",
        "sub",
        "div",
        "exp",
        "log",
        "sqrt",
        "pow",
        "mean",
        "sum",
        "reshape",
        "view",
        "transpose",
        "permute",
        "squeeze",
        "unsqueeze",
        "layer_norm",
        "pad",
        "interpolate",
        "normalize",
        "zeros",
        "ones",
        "zeros_like",
        "ones_like",
        "tensor",
        "full",
        "arange",
    ]
)


@dataclass
class ModuleFacts:
    optimizers: dict[str, str | None] = field(
        default_factory=dict
    )  # name -> model whose parameters() it holds
    schedulers: set[str] = field(default_factory=set)
    scalers: dict[str, ast.Call] = field(default_factory=dict)
    models: set[str] = field(default_factory=set)
    model_class: dict[str, str] = field(
        default_factory=dict
    )  # model name -> class (qualified torch or local)
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    hooks: list[tuple[int, int, str]] = field(default_factory=list)
    losses: set[str] = field(
        default_factory=set
    )  # names bound to torch.nn loss modules (no parameters, no state)
    data_sources: set[str] = field(
        default_factory=set
    )  # non-torch modules and objects made by them (np, rng)
    mindspore_names: dict[str, str] = field(default_factory=dict)
    # summaries.Summaries: the helpers of the module that run a training step on a loss they receive
    step_summaries: object = None

    def models_of(self, optimizer: str) -> set[str]:
        model = self.optimizers.get(optimizer)
        return {model} if model else set()

    def optimizers_of(self, model: str) -> list[str]:
        return [name for name, owner in self.optimizers.items() if owner == model]

    def is_pure_model(
        self, name: str, aliases: dict[str, str], seen: frozenset[str] = frozenset()
    ) -> bool:
        """True when calling ``name`` provably has no side effect (no BatchNorm statistics, no dropout)."""
        cls = self.model_class.get(name)
        if cls is None:
            return False
        if cls.startswith("torch.nn."):
            return cls.rsplit(".", 1)[1] in PURE_LAYERS
        node = self.classes.get(cls)
        if node is None or cls in seen:
            return False
        for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
            target = dotted(call.func)
            if target is None:
                if (
                    isinstance(call.func, ast.Attribute)
                    and call.func.attr in PURE_METHODS
                ):
                    continue
                return False
            qualified = resolve(target, aliases)
            if qualified is not None:
                tail = qualified.rsplit(".", 1)[1]
                if tail not in PURE_LAYERS and tail not in PURE_FUNCTIONS:
                    return False
            elif (
                target.startswith("self.")
                and target.count(".") == 1
                or target in ("super", "super().__init__")
                or target.endswith("__init__")
                or target in self.classes
                and self.is_pure_model_class(target, aliases, seen | {cls})
                or isinstance(call.func, ast.Attribute)
                and call.func.attr in PURE_METHODS
            ):
                continue
            else:
                return False
        return True

    def is_pure_model_class(
        self, cls: str, aliases: dict[str, str], seen: frozenset[str]
    ) -> bool:
        probe = ModuleFacts(classes=self.classes, model_class={"_": cls})
        return probe.is_pure_model("_", aliases, seen)


PURE_METHODS = frozenset(
    [
        "view",
        "reshape",
        "size",
        "flatten",
        "squeeze",
        "unsqueeze",
        "permute",
        "transpose",
        "contiguous",
        "mean",
        "sum",
        "t",
        "__init__",
        "super",
        "relu",
        "tanh",
        "sigmoid",
        "softmax",
        "log_softmax",
        "float",
    ]
)


def collect(tree: ast.Module, aliases: dict[str, str]) -> ModuleFacts:
    facts = ModuleFacts(mindspore_names=_mindspore_names(tree))
    for node in statements(tree):  # in ast.walk's order, without entering expressions
        if isinstance(node, ast.ClassDef):
            facts.classes[node.name] = node
    module_classes = {
        name for name, node in facts.classes.items() if _is_module_class(node, aliases)
    }
    optimizer_classes = _optimizer_classes(facts.classes, aliases)
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in DATA_MODULES:
                    facts.data_sources.add(alias.asname or alias.name.split(".")[0])
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.split(".")[0] in DATA_MODULES
        ):
            facts.data_sources.update(
                alias.asname or alias.name for alias in node.names
            )
    for node in tree_statements(tree, ast.Assign):
        if (
            isinstance(node.value, ast.Call)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            callee = dotted(node.value.func)
            if callee and callee.split(".")[0] in facts.data_sources:
                facts.data_sources.add(node.targets[0].id)
    for node in tree_nodes(tree, ast.Assign, ast.AnnAssign, ast.Call):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(
            node.value, ast.Call
        ):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                name = dotted(target)
                if name is not None:
                    _classify(facts, name, node.value, aliases, module_classes)
                    if dotted(node.value.func) in optimizer_classes:
                        facts.optimizers[name] = _owner(node.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            receiver = dotted(node.func.value)
            attr = node.func.attr
            if receiver is None or resolve(receiver, aliases) is not None:
                continue
            if attr in MODEL_METHODS and attr != "zero_grad":
                facts.models.add(receiver)
            elif attr in {
                "register_hook",
                "register_full_backward_hook",
                "register_backward_hook",
                "register_full_backward_pre_hook",
                "register_post_accumulate_grad_hook",
            }:
                facts.hooks.append((node.lineno, node.col_offset, attr))
    # ``x.zero_grad()`` on a name that is no optimizer is a model.
    for node in tree_nodes(tree, ast.Call):
        if isinstance(node.func, ast.Attribute) and node.func.attr == "zero_grad":
            receiver = dotted(node.func.value)
            if (
                receiver
                and receiver not in facts.optimizers
                and not _looks_like_optimizer(receiver)
            ):
                facts.models.add(receiver)
    return facts


def _looks_like_optimizer(name: str) -> bool:
    last = name.rsplit(".", 1)[-1].lower()
    return "optim" in last or any(part.startswith("opt") for part in last.split("_"))


def _is_module_class(node: ast.ClassDef, aliases: dict[str, str]) -> bool:
    for base in node.bases:
        name = dotted(base)
        if name and resolve(name, aliases) in (
            "torch.nn.Module",
            "torch.nn.modules.module.Module",
        ):
            return True
    return False


_OPTIMIZER_BASES = ("torch.optim.Optimizer", "torch.optim.optimizer.Optimizer")


def _optimizer_classes(
    classes: dict[str, ast.ClassDef], aliases: dict[str, str]
) -> set[str]:
    """Classes of the module written against torch's optimizer API (directly or through another)."""
    found: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, node in classes.items():
            if name in found:
                continue
            for base in node.bases:
                base_name = dotted(base)
                if base_name in found or (
                    base_name and resolve(base_name, aliases) in _OPTIMIZER_BASES
                ):
                    found.add(name)
                    changed = True
                    break
    return found


def _mindspore_names(tree: ast.Module) -> dict[str, str]:
    """Local names bound to MindSpore modules (so converted code is read like the original)."""
    names: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "mindspore":
                    names[alias.asname or "mindspore"] = (
                        alias.name if alias.asname else "mindspore"
                    )
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.split(".")[0] == "mindspore"
        ):
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


_MS_EQUIVALENT = {
    "mindspore.experimental.optim.lr_scheduler.": "torch.optim.lr_scheduler.",
    "mindspore.experimental.optim.": "torch.optim.",
    "mindspore.amp.DynamicLossScaler": "torch.amp.GradScaler",
    "mindspore.nn.": "torch.nn.",
}


def _classify(
    facts: ModuleFacts,
    name: str,
    call: ast.Call,
    aliases: dict[str, str],
    module_classes: set[str],
) -> None:
    while (
        isinstance(call.func, ast.Attribute)
        and call.func.attr in {"to", "cuda", "cpu", "float", "double", "train"}
        and isinstance(call.func.value, ast.Call)
    ):
        call = call.func.value
    callee = dotted(call.func)
    if callee is None:
        return
    qualified = resolve(callee, aliases)
    if qualified is None and facts.mindspore_names:
        converted = resolve(callee, facts.mindspore_names)
        for prefix, torch_prefix in _MS_EQUIVALENT.items():
            if converted and converted.startswith(prefix):
                qualified = torch_prefix + converted[len(prefix) :]
                break
    if qualified is not None:
        if qualified.startswith("torch.optim.lr_scheduler."):
            facts.schedulers.add(name)
        elif qualified.startswith("torch.optim."):
            facts.optimizers[name] = _owner(call)
        elif qualified in SCALER_CLASSES:
            facts.scalers[name] = call
        elif (
            qualified.rsplit(".", 1)[1] in ("DistributedDataParallel", "DataParallel")
            and call.args
        ):
            wrapped = dotted(call.args[0])
            facts.models.add(name)
            if wrapped in facts.model_class:
                facts.model_class[name] = facts.model_class[wrapped]
        elif (
            qualified.startswith("torch.nn.")
            and qualified.rsplit(".", 1)[1][:1].isupper()
        ):
            facts.model_class[name] = qualified
            if qualified.rsplit(".", 1)[1].endswith("Loss"):
                facts.losses.add(name)
            else:
                facts.models.add(name)
    elif callee in module_classes:
        facts.model_class[name] = callee
        facts.models.add(name)


def _owner(call: ast.Call) -> str | None:
    """``M`` when the optimizer is built on ``M.parameters()`` (first argument or ``params=``)."""
    first = (
        call.args[0]
        if call.args
        else next((k.value for k in call.keywords if k.arg == "params"), None)
    )
    if (
        isinstance(first, ast.Call)
        and isinstance(first.func, ast.Attribute)
        and first.func.attr in ("parameters", "trainable_params")
        and not first.args
    ):
        return dotted(first.func.value)
    return None
