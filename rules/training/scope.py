"""What the statements of a training scope are: data preparation, model calls, random draws,
and the regions (forward computations) built from them."""

from __future__ import annotations

import ast
import builtins
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst

from ...migrator.aliases import dotted, resolve
from ..common.dataflow import parse, usage
from ..companion import MODULE as COMPANION_MODULE
from .events import Event
from .gradstate import Place

PREP_METHODS = frozenset(
    [
        "to",
        "cuda",
        "cpu",
        "float",
        "double",
        "half",
        "long",
        "int",
        "bool",
        "byte",
        "view",
        "reshape",
        "squeeze",
        "unsqueeze",
        "permute",
        "transpose",
        "contiguous",
        "flatten",
        "size",
        "t",
        "type",
        "numel",
        "dim",
        "fill_",
        "zero_",
        "view_as",
        "reshape_as",
        "expand",
        "expand_as",
        "repeat",
        "narrow",
        "split",
        "chunk",
    ]
)
PREP_TORCH = frozenset(
    [
        "randn",
        "rand",
        "randint",
        "randn_like",
        "rand_like",
        "randint_like",
        "zeros",
        "ones",
        "full",
        "empty",
        "zeros_like",
        "ones_like",
        "full_like",
        "empty_like",
        "tensor",
        "as_tensor",
        "from_numpy",
        "arange",
        "linspace",
        "eye",
        "normal",
        "randperm",
        "cat",
        "stack",
        "float32",
        "float64",
        "float16",
        "int64",
        "int32",
        "long",
        "float",
        "bool",
    ]
)
PREP_BUILTINS = frozenset(
    {"len", "int", "float", "range", "min", "max", "abs", "round", "list", "tuple"}
)
BUILTINS = frozenset(dir(builtins))
HIDDEN = "no model is called in the computation of this loss here (its forward pass ran elsewhere: in an earlier call, kept in a list, or in another function)"
# Tensor methods that compute a new value and touch no model.
TENSOR_MATH = frozenset(
    [
        "item",
        "detach",
        "mean",
        "sum",
        "backward",
        "append",
        "tanh",
        "sigmoid",
        "relu",
        "exp",
        "log",
        "abs",
        "clamp",
        "softmax",
        "log_softmax",
        "pow",
        "sqrt",
        "norm",
        "max",
        "min",
        "argmax",
    ]
)
RANDOM_TORCH = frozenset(
    {
        "randn",
        "rand",
        "randint",
        "randn_like",
        "rand_like",
        "randint_like",
        "normal",
        "randperm",
        "bernoulli",
        "multinomial",
        "dropout",
    }
)


@dataclass
class Region:
    backwards: list[Event]
    pset: str
    stmts: list[cst.CSTNode]
    block: Sequence[cst.CSTNode]
    call_at: cst.CSTNode  # the region statement the call replaces
    params: list[str] = field(default_factory=list)
    aux: list[str] = field(default_factory=list)
    first: cst.BaseExpression | None = None
    first_name: str | None = None
    copies: set[int] = field(
        default_factory=set
    )  # statements also kept where they stand
    maybe_unbound: list[str] = field(
        default_factory=list
    )  # parameters the loop binds only on some paths
    impure: list = field(
        default_factory=list
    )  # statements that would have to run twice
    vjp_stmt: cst.CSTNode | None = (
        None  # ``out = model(x)`` run once through ``mindspore.vjp``
    )
    vjp_name: str = ""
    joint: tuple = ()  # several optimizers' parameter sets differentiated at once
    loop: cst.CSTNode | None = None
    problem: tuple[str, str] | None = (
        None  # (rule id, message) when the region cannot be built
    )
    # statements between the forward statements that only read their values: they run after
    # the call, in order, reading what it returns
    deferred: list = field(default_factory=list)
    # name a deferred statement reads -> (the aux name that holds its value there, id of the
    # forward statement that rebinds it later)
    snapshots: dict = field(default_factory=dict)
    # shared.Sites: backwards in exclusive branches that share this forward
    sites: object = None
    emitted: tuple = ()


@dataclass
class ScopeInfo:
    body: Sequence[cst.CSTNode]
    node: cst.CSTNode  # the FunctionDef or Module
    places: dict[int, Place]
    models: set[str]
    aliases: dict[str, str]
    is_pure_model: object  # callable(name) -> bool
    function_params: list[str] = field(default_factory=list)
    events: dict = field(default_factory=dict)
    owners: dict = field(
        default_factory=dict
    )  # optimizer -> the model whose parameters it holds
    losses: set = field(default_factory=set)
    data_sources: set = field(default_factory=set)
    # local functions whose body calls a model (``_forward()`` closures)
    forward_callables: set = field(default_factory=set)
    # names the module imports from other modules (functions of other modules)
    imported_modules: set = field(default_factory=set)
    _reads: Counter | None = None
    # The ``ast`` of the module as parsed, when ``node`` is that module (no second parse).
    parsed_tree: ast.Module | None = None

    def reads(self) -> Counter:
        if self._reads is None:
            if not isinstance(self.node, cst.Module):
                tree = parse(self.node)
            elif self.parsed_tree is not None:
                tree = self.parsed_tree
            else:
                tree = ast.parse(self.node.code)
            self._reads = _name_loads(tree)
        return self._reads


def library(name: str | None, aliases: dict[str, str]) -> bool:
    """A torch name, or a MindSpore or companion name another rule already emitted."""
    return name is not None and (
        resolve(name, aliases) is not None
        or name.split(".")[0] in ("mindspore", COMPANION_MODULE)
    )


def _name_loads(tree: ast.AST) -> Counter:
    return Counter(
        n.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    )


def loop_target_names(loop: cst.CSTNode | None) -> set[str]:
    if isinstance(loop, cst.For):
        return {
            n.id
            for n in ast.walk(
                ast.parse(cst.Module([]).code_for_node(loop.target), mode="eval")
            )
            if isinstance(n, ast.Name)
        }
    return set()


def uses_parameters(stmts: list[cst.CSTNode], scope: ScopeInfo) -> bool:
    """Whether the region calls a model (so the loss can depend on parameters)."""
    for stmt in stmts:
        for node in ast.walk(parse(stmt)):
            if not isinstance(node, ast.Call):
                continue
            name = dotted(node.func)
            if name is None:
                if isinstance(node.func, ast.Attribute):
                    name = dotted(node.func.value)
                else:
                    continue
            if name is None:
                continue
            candidates = {name, name.rsplit(".", 1)[0]}
            if name in scope.forward_callables:
                return True
            if scope.models:
                if candidates & scope.models or any(
                    dotted(a) in scope.models for a in node.args
                ):
                    return True
                if name.startswith("self.") and not library(name, scope.aliases):
                    return True
            elif (
                not library(name, scope.aliases)
                and name not in scope.losses
                and name not in BUILTINS
                and not (
                    isinstance(node.func, ast.Attribute)
                    and node.func.attr in PREP_METHODS | TENSOR_MATH
                )
            ):
                return True
    return False


def has_random(stmt: cst.CSTNode, scope: ScopeInfo) -> bool:
    for node in ast.walk(parse(stmt)):
        if isinstance(node, ast.Call):
            name = dotted(node.func)
            qualified = resolve(name, scope.aliases) if name else None
            if qualified and qualified.rsplit(".", 1)[-1] in RANDOM_TORCH:
                return True
    return False


def calls_model(stmt: cst.CSTNode, scope: ScopeInfo) -> bool:
    return uses_parameters([stmt], scope)


def is_pure(stmt: cst.CSTNode, scope: ScopeInfo) -> bool:
    """A statement that may run twice: it binds names only and calls side-effect-free models."""
    if not isinstance(stmt, cst.SimpleStatementLine) or has_random(stmt, scope):
        return False
    found = usage(stmt)
    if found.mutates:
        return False
    for node in ast.walk(parse(stmt)):
        if isinstance(node, ast.Call):
            name = dotted(node.func)
            if name is None:
                return False
            if library(name, scope.aliases) or name in scope.losses:
                continue
            if name in scope.models:
                if not scope.is_pure_model(name):
                    return False
                continue
            return False
    return True


def called_models(stmt: cst.CSTNode, scope: ScopeInfo) -> set[str] | None:
    """Models a statement calls; None when it calls something unknown (which could change a model)."""
    models: set[str] = set()
    for node in ast.walk(parse(stmt)):
        if not isinstance(node, ast.Call):
            continue
        name = dotted(node.func)
        if name is None:
            if isinstance(node.func, ast.Attribute) and (
                node.func.attr in PREP_METHODS | TENSOR_MATH
                or isinstance(node.func.value, ast.Constant)  # "...".format(...)
            ):
                continue
            return None
        if name in scope.forward_callables:
            return None  # runs models this statement does not name
        if name.split(".")[0] in scope.data_sources or name in ("sys.exit", "exit"):
            continue  # computes on numbers (math.isfinite), or ends the program
        if (
            library(name, scope.aliases)
            or name in PREP_BUILTINS
            or name in scope.losses
            or name in {"print", "zip", "enumerate", "isinstance", "str", "format"}
        ):
            continue
        root = name.rsplit(".", 1)[0] if "." in name else name
        if name in scope.models or root in scope.models:
            models.add(name if name in scope.models else root)
        elif isinstance(node.func, ast.Attribute) and node.func.attr in PREP_METHODS | {
            "item",
            "detach",
            "mean",
            "sum",
            "append",
            "format",
            "zero_grad",
            "step",
            "update",
            "unscale_",
            "backward",
            "scale",
        }:
            continue
        else:
            return None
    return models


def _walk(stmt: cst.CSTNode):
    from .gradstate import leaves

    return leaves([stmt])


def _compound_targets(stmt: cst.CSTNode) -> set[str]:
    names: set[str] = set()
    for node in _walk(stmt):
        if isinstance(node, cst.For):
            names |= loop_target_names(node)
        elif isinstance(node, cst.With):
            for item in node.items:
                if item.asname is not None:
                    names |= {
                        n.id
                        for n in ast.walk(
                            ast.parse(
                                cst.Module([]).code_for_node(item.asname.name),
                                mode="eval",
                            )
                        )
                        if isinstance(n, ast.Name)
                    }
    return names
