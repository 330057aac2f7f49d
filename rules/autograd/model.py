"""What the gradient rules know about a statement list: leaves, sites, extracted functions."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

TENSOR_METHODS = frozenset(
    [
        "abs",
        "add",
        "clamp",
        "clamp_min",
        "clone",
        "cos",
        "cosh",
        "cumsum",
        "detach",
        "div",
        "dot",
        "double",
        "exp",
        "expand",
        "expand_as",
        "flatten",
        "float",
        "log",
        "log1p",
        "log_softmax",
        "matmul",
        "max",
        "mean",
        "min",
        "mm",
        "mul",
        "neg",
        "norm",
        "permute",
        "pow",
        "prod",
        "relu",
        "reshape",
        "sigmoid",
        "sin",
        "sinh",
        "softmax",
        "sqrt",
        "square",
        "squeeze",
        "std",
        "sub",
        "sum",
        "t",
        "tanh",
        "transpose",
        "unsqueeze",
        "var",
        "view",
        "view_as",
        "item",
        "tolist",
        "numpy",
        "cpu",
    ]
)
# Census names (qualified torch names, ".method" for methods) of gradient sites.
SITE_NAMES = frozenset({".backward", "torch.autograd.grad", "torch.autograd.backward"})
SITE_KWARGS_BACKWARD = frozenset(
    {"gradient", "retain_graph", "create_graph", "grad_tensors", "tensors"}
)
SITE_KWARGS_GRAD = frozenset(
    {
        "outputs",
        "inputs",
        "grad_outputs",
        "retain_graph",
        "create_graph",
        "allow_unused",
        "only_inputs",
    }
)


@dataclass
class Leaf:
    position: int  # index in the output list from which the name is a leaf
    state: str = "none"  # none | zero | var | unknown
    var: str = ""
    rank: int = 0  # creation order, which orders the extracted function's parameters


@dataclass
class Extracted:
    name: str
    params: list[str]
    depends: set[str]


@dataclass
class Site:
    kind: str  # backward | grad
    call: cst.Call
    outputs: list[cst.BaseExpression]
    inputs: list[str] | None = None  # autograd.grad inputs
    inputs_tuple: bool = False
    sens: cst.BaseExpression | None = None
    allow_unused: bool = False
    # `model.parameters()` given as the inputs: MindSpore's `weights`.
    weights: cst.BaseExpression | None = None


@dataclass
class Block:
    """Per statement-list state."""

    leaves: dict[str, Leaf] = field(default_factory=dict)
    nonleaf: set[str] = field(default_factory=set)
    extracted: dict[str, Extracted] = field(default_factory=dict)
    # Whether a name holds a tensor torch would record (requires_grad), where that is certain.
    requires: dict[str, bool] = field(default_factory=dict)
    # Leaf-making statements still in the output, by identity: the leaf's name.
    leaf_statements: dict[int, str] = field(default_factory=dict)
    # A gradient site here was left unconverted: `.grad` values are no longer known.
    poisoned: bool = False
    retained: set[str] = field(default_factory=set)
    # Statements that only mark a leaf (``x.requires_grad_()``), dropped at the end.
    markers: set[int] = field(default_factory=set)
    # For a loop body converted from the enclosing block: names read after the body's statements.
    outer_later: set[str] | None = None
