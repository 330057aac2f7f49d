"""Layers told apart by their class name, the way init functions often do it:

    classname = m.__class__.__name__
    if classname.find('BatchNorm') != -1:
        nn.init.normal_(m.weight, 1.0, 0.02)

Inside such a branch the receiver is one of the torch.nn classes whose name holds the text. Where
all of them give an attribute the same MindSpore name (`weight` is `gamma` on every BatchNorm), the
attribute takes it. A class of the module's own whose name holds the text makes the test ambiguous,
as does a torch.nn class the API tables do not map to a MindSpore layer (a companion class, or one
left on torch). Lazy classes are left out: torch turns them into their plain class.
"""

from __future__ import annotations

import ast
from functools import lru_cache

import libcst as cst

from ...migrator.context import ModuleContext
from .layers import PARAM_NAMES, is_layer, param_name

# torch.nn Module classes (torch 2.13) that no API table maps to a MindSpore class.
_UNMAPPED = [
    "AdaptiveLogSoftmaxWithLoss",
    "AdaptiveMaxPool3d",
    "AlphaDropout",
    "CTCLoss",
    "CircularPad1d",
    "CircularPad2d",
    "CircularPad3d",
    "Container",
    "CrossMapLRN2d",
    "EmbeddingBag",
    "FeatureAlphaDropout",
    "Fold",
    "FractionalMaxPool2d",
    "FractionalMaxPool3d",
    "GRUCell",
    "InstanceNorm3d",
    "LPPool3d",
    "LSTMCell",
    "LinearCrossEntropyLoss",
    "LocalResponseNorm",
    "MaxUnpool1d",
    "MaxUnpool2d",
    "MaxUnpool3d",
    "Module",
    "ModuleDict",
    "ModuleList",
    "MultiLabelMarginLoss",
    "NLLLoss2d",
    "ParameterDict",
    "ParameterList",
    "RMSNorm",
    "RNNBase",
    "RNNCell",
    "RNNCellBase",
    "RReLU",
    "ReflectionPad3d",
    "Sequential",
    "Softmax2d",
    "TransformerDecoder",
    "TransformerEncoder",
    "TripletMarginWithDistanceLoss",
    "Unfold",
    "UpsamplingBilinear2d",
    "UpsamplingNearest2d",
    "ZeroPad1d",
    "ZeroPad3d",
]


@lru_cache(maxsize=1)
def _torch_layers() -> tuple[str, ...]:
    """The torch.nn classes the API tables map to a MindSpore class, or whose MindSpore parameter
    names are known."""
    from ..api import BY_TORCH_NAME

    mapped = [
        name
        for name, mapping in BY_TORCH_NAME.items()
        if mapping.kind == "class"
        and mapping.translatable
        and is_layer(name)
        and name.count(".") == 2
    ]
    return tuple(mapped + [name for name in PARAM_NAMES if name not in mapped])


@lru_cache(maxsize=1)
def _other_layers() -> frozenset[str]:
    """Class names of the torch.nn classes that are not in `_torch_layers`."""
    from ..companion.table import ENTRIES

    mapped = {name.rsplit(".", 1)[1] for name in _torch_layers()}
    companion = {
        name.rsplit(".", 1)[1]
        for name in ENTRIES
        if is_layer(name) and name.count(".") == 2
    }
    # A lazy class turns into its plain class at the first call (`LazyBatchNorm2d` is a
    # `BatchNorm2d` then), so its name never reaches a test of the built model.
    lazy = {name for name in companion if name.startswith("Lazy")}
    return frozenset((companion | set(_UNMAPPED)) - mapped - lazy)


def named_layer(
    receiver: cst.BaseExpression, attribute: str, ctx: ModuleContext
) -> str | None:
    """A torch layer standing for every class the enclosing class-name test admits, when they
    all name ``attribute`` alike on MindSpore; else None."""
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
        text = _tested_text(statement.test, receiver.value, stack[:index])
        if text is None:
            continue
        return _agreeing_layer(text, attribute, ctx)
    return None


def _agreeing_layer(text: str, attribute: str, ctx: ModuleContext) -> str | None:
    if any(text in name for name in _own_classes(ctx) | _other_layers()):
        return None
    layers = [name for name in _torch_layers() if text in name.rsplit(".", 1)[1]]
    if not layers:
        return None
    names = {param_name(layer, attribute) for layer in layers}
    return layers[0] if len(names) == 1 else None


_OWN_CLASSES = "class_names.own"


def _own_classes(ctx: ModuleContext) -> frozenset[str]:
    names = ctx.state.get(_OWN_CLASSES)
    if names is None:
        tree = ctx.state.get("ast")
        names = frozenset(
            node.name
            for node in (ast.walk(tree) if isinstance(tree, ast.AST) else ())
            if isinstance(node, ast.ClassDef)
        )
        ctx.state[_OWN_CLASSES] = names
    return names


def _tested_text(
    test: cst.BaseExpression, receiver: str, outer: list[cst.CSTNode]
) -> str | None:
    """'BatchNorm' for `name.find('BatchNorm') != -1`, `'BatchNorm' in name` or
    `name.startswith('BatchNorm')`, where `name` is the receiver's class name."""
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        if (
            isinstance(target.operator, cst.NotEqual)
            and isinstance(test.left, cst.Call)
            and isinstance(test.left.func, cst.Attribute)
            and test.left.func.attr.value == "find"
            and _is_minus_one(target.comparator)
        ):
            return _text_of(test.left, receiver, outer)
        if (
            isinstance(target.operator, cst.In)
            and isinstance(test.left, cst.SimpleString)
            and _is_class_name(target.comparator, receiver, outer)
        ):
            value = test.left.evaluated_value
            return value if isinstance(value, str) and value else None
        return None
    if (
        isinstance(test, cst.Call)
        and isinstance(test.func, cst.Attribute)
        and test.func.attr.value == "startswith"
    ):
        return _text_of(test, receiver, outer)
    return None


def _text_of(call: cst.Call, receiver: str, outer: list[cst.CSTNode]) -> str | None:
    if len(call.args) != 1 or not isinstance(call.args[0].value, cst.SimpleString):
        return None
    if not _is_class_name(call.func.value, receiver, outer):
        return None
    value = call.args[0].value.evaluated_value
    return value if isinstance(value, str) and value else None


def _is_minus_one(node: cst.BaseExpression) -> bool:
    return (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Minus)
        and isinstance(node.expression, cst.Integer)
        and node.expression.value == "1"
    )


def _class_name_of(node: cst.BaseExpression, receiver: str) -> bool:
    """`receiver.__class__.__name__` or `type(receiver).__name__`."""
    if not (isinstance(node, cst.Attribute) and node.attr.value == "__name__"):
        return False
    inner = node.value
    if isinstance(inner, cst.Attribute) and inner.attr.value == "__class__":
        return isinstance(inner.value, cst.Name) and inner.value.value == receiver
    return (
        isinstance(inner, cst.Call)
        and isinstance(inner.func, cst.Name)
        and inner.func.value == "type"
        and len(inner.args) == 1
        and isinstance(inner.args[0].value, cst.Name)
        and inner.args[0].value.value == receiver
    )


def _is_class_name(
    node: cst.BaseExpression, receiver: str, outer: list[cst.CSTNode]
) -> bool:
    """The receiver's class name, written out or through a name the enclosing function binds
    once, to it."""
    if _class_name_of(node, receiver):
        return True
    if not isinstance(node, cst.Name):
        return False
    function = next(
        (s for s in reversed(outer) if isinstance(s, cst.FunctionDef)), None
    )
    if function is None:
        return False
    bindings = _Bindings(node.value)
    function.body.visit(bindings)
    return len(bindings.values) == 1 and _class_name_of(bindings.values[0], receiver)


class _Bindings(cst.CSTVisitor):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.values: list[cst.BaseExpression | None] = []

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name) and target.target.value == self.name:
                self.values.append(node.value)
            elif self.name in cst.Module([]).code_for_node(target.target):
                self.values.append(None)  # unpacked: not one known value

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name) and node.target.value == self.name:
            self.values.append(None)
