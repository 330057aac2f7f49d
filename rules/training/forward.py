"""The forward region of a backward: the statements of the iteration whose values flow into the loss.

The region is the backward slice of the loss, cut where the flow carries no gradient (``.detach()``,
``.item()``, ``torch.no_grad()``) and at data preparation (``data.to(device)``, ``torch.randn(...)``),
which stays where it is. The region becomes ``forward_fn``: its parameters are the names it reads
that the loop binds, the other names it reads stay closures, and the names it binds that other code
reads come back as auxiliary outputs.
"""

from __future__ import annotations

import ast
import builtins
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst

from ...migrator.aliases import dotted, resolve
from ..common.dataflow import exposed_reads, parse, usage
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
    _reads: Counter | None = None

    def reads(self) -> Counter:
        if self._reads is None:
            self._reads = _name_loads(
                parse(self.node)
                if not isinstance(self.node, cst.Module)
                else ast.parse(self.node.code)
            )
        return self._reads


def library(name: str | None, aliases: dict[str, str]) -> bool:
    """A torch name, or a MindSpore name another rule already emitted."""
    return name is not None and (
        resolve(name, aliases) is not None
        or name == "mindspore"
        or name.startswith("mindspore.")
    )


def _name_loads(tree: ast.AST) -> Counter:
    return Counter(
        n.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    )


def _expr_usage(expr: cst.BaseExpression):
    return usage(cst.SimpleStatementLine([cst.Expr(expr)]))


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


def _chain(
    place: Place, scope: ScopeInfo, stop: Sequence
) -> list[tuple[cst.CSTNode, Place]]:
    """Statements before ``place`` in its block and the blocks around it, nearest first."""
    found: list[tuple[cst.CSTNode, Place]] = []
    while True:
        for stmt in reversed(place.block[: place.index]):
            found.append((stmt, scope.places[id(stmt)]))
        if place.block is stop or place.parent is None:
            return found
        place = scope.places[id(place.parent)]


class _Prep:
    """Whether a statement only prepares data: no parameter can flow into what it binds."""

    def __init__(self, outside: set[str], scope: ScopeInfo) -> None:
        self.outside = outside
        self.scope = scope

    def statement(self, stmt: cst.CSTNode) -> bool:
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            return False
        tree = parse(stmt).body
        if len(tree) != 1:
            return False
        node = tree[0]
        if isinstance(node, ast.Assign):
            return all(self._target(t) for t in node.targets) and self.strict(
                node.value
            )
        if isinstance(node, ast.AugAssign):
            return (
                isinstance(node.target, ast.Name)
                and node.target.id in self.outside
                and self.strict(node.value)
            )
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            func = node.value.func
            return (
                isinstance(func, ast.Attribute)
                and func.attr.endswith("_")
                and func.attr in PREP_METHODS
                and self.strict(func.value)
                and all(self.loose(a) for a in self._args(node.value))
            )
        return False

    def _target(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            return True
        if isinstance(node, (ast.Tuple, ast.List)):
            return all(self._target(e) for e in node.elts)
        return False

    @staticmethod
    def _args(call: ast.Call) -> list[ast.AST]:
        return [*call.args, *(k.value for k in call.keywords)]

    def _torch(self, node: ast.AST) -> str | None:
        name = dotted(node)
        if name and name.startswith("mindspore."):
            return name
        return resolve(name, self.scope.aliases) if name else None

    def strict(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, ast.Name):
            return node.id in self.outside
        if isinstance(node, ast.Attribute):
            qualified = self._torch(node)
            if qualified is not None:
                return qualified.rsplit(".", 1)[-1] in PREP_TORCH
            return self.strict(node.value)
        if isinstance(node, ast.Subscript):
            return self.strict(node.value) and self.loose(node.slice)
        if isinstance(node, (ast.Tuple, ast.List)):
            return all(self.strict(e) for e in node.elts)
        if isinstance(node, ast.BinOp):
            return self.strict(node.left) and self.strict(node.right)
        if isinstance(node, ast.UnaryOp):
            return self.strict(node.operand)
        if isinstance(node, ast.Call):
            qualified = self._torch(node.func)
            if qualified is not None:
                return qualified.rsplit(".", 1)[-1] in PREP_TORCH and all(
                    self.loose(a) for a in self._args(node)
                )
            if isinstance(node.func, ast.Attribute) and node.func.attr in PREP_METHODS:
                return self.strict(node.func.value) and all(
                    self.loose(a) for a in self._args(node)
                )
            if (
                isinstance(node.func, ast.Name)
                and node.func.id == "next"
                and len(node.args) == 1
            ):
                return self.loose(node.args[0])
            if isinstance(node.func, ast.Name) and node.func.id in PREP_BUILTINS:
                return all(self.strict(a) for a in self._args(node))
            callee = dotted(node.func)
            if callee is not None and callee.split(".")[0] in self.scope.data_sources:
                return all(self.loose(a) for a in self._args(node))
        return False

    def loose(self, node: ast.AST) -> bool:
        """In argument position: devices, dtypes, shapes and fill values are fine; models are not."""
        if isinstance(node, ast.Name):
            return node.id not in self.scope.models
        if isinstance(node, ast.Attribute):
            root = dotted(node)
            if root is not None:
                return not any(
                    root == m or root.startswith(m + ".") for m in self.scope.models
                )
        if isinstance(node, (ast.Tuple, ast.List)):
            return all(self.loose(e) for e in node.elts)
        if isinstance(node, ast.Slice):
            return all(
                self.loose(p)
                for p in (node.lower, node.upper, node.step)
                if p is not None
            )
        return self.strict(node)


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


def build_region(backwards: list[Event], pset: str, scope: ScopeInfo) -> Region:
    last = backwards[-1]
    place = scope.places[id(last.stmt)]
    loop = place.loop
    stop = loop.body.body if loop is not None else scope.body
    chain = _chain(place, scope, stop)
    region = Region(backwards, pset, [], place.block, last.stmt, loop=loop)
    # Data preparation, in program order.
    outside = (
        loop_target_names(loop)
        if loop is not None
        else set(scope.function_params) - scope.models
    )
    prep = _Prep(outside, scope)
    is_prep: dict[int, bool] = {}
    for stmt, _ in reversed(chain):
        ok = prep.statement(stmt)
        is_prep[id(stmt)] = ok
        written = usage(stmt).writes
        if ok:
            outside |= written
        else:
            outside -= written
    # The slice.
    needed: dict[str, bool] = {}
    for event in backwards:
        for name, diff in _expr_usage(event.loss).reads:
            needed[name] = needed.get(name, False) or diff
    members: list[cst.CSTNode] = []
    outside_defs: set[str] = set()
    for stmt, _ in chain:
        found = usage(stmt)
        hit = (found.writes | found.mutates) & needed.keys()
        if not hit:
            continue
        diff = any(needed[n] for n in hit)
        defines_model = bool(
            found.writes & (scope.models | scope.losses | set(scope.owners))
        )
        if is_prep[id(stmt)] or not diff or defines_model:
            for name in hit & found.writes:
                needed.pop(name, None)
                outside_defs.add(name)
            continue
        members.append(stmt)
        if isinstance(stmt, cst.SimpleStatementLine):
            for name in hit & found.writes:
                needed.pop(name, None)
        for name, d in found.reads:
            needed[name] = needed.get(name, False) or d
        for name in found.mutates:
            needed.setdefault(name, True)
    members.reverse()
    region.stmts = members
    first_name = None
    if len(backwards) == 1:
        region.first = backwards[0].loss
        if isinstance(region.first, cst.Name):
            first_name = region.first.value
    else:
        total: cst.BaseExpression = _paren(backwards[0].loss)
        for event in backwards[1:]:
            total = cst.BinaryOperation(total, cst.Add(), _paren(event.loss))
        region.first = total
    region.first_name = first_name
    if not members:
        region.problem = ("TM920", HIDDEN)
        return region
    blocks = {id(scope.places[id(s)].block) for s in members}
    if len(blocks) != 1:
        region.problem = (
            "TM926",
            "the forward computation is spread over several blocks",
        )
        return region
    if not uses_parameters(members, scope):
        region.problem = ("TM920", HIDDEN)
        return region
    region.block = scope.places[id(members[0])].block
    anchor = None
    if not isinstance(region.first, cst.Name) and any(
        s is last.stmt for s in region.block
    ):
        anchor = last.stmt  # the loss expression is evaluated where the backward stands
    if not _place(region, scope, anchor):
        shared = region.impure[0] if len(region.impure) == 1 else None
        if shared is None or not _through_vjp(region, shared, scope):
            return region
        region.problem = None
        if not _place(region, scope, anchor):
            return region
    _signature(region, scope, {**dict.fromkeys(outside_defs, False), **needed})
    if region.vjp_stmt is not None:
        name = region.vjp_name
        region.params = [name] + [p for p in region.params if p != name]
    return region


def _through_vjp(region: Region, stmt: cst.CSTNode, scope: ScopeInfo) -> bool:
    """``fake = netG(noise)`` is needed before the step (detached) and differentiated after it:
    run it once with ``mindspore.vjp`` and take the gradient of the loss with respect to ``fake``."""
    if (
        not isinstance(stmt, cst.SimpleStatementLine)
        or len(stmt.body) != 1
        or not isinstance(stmt.body[0], cst.Assign)
    ):
        return False
    assign = stmt.body[0]
    if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
        return False
    call = assign.value
    if not isinstance(call, cst.Call) or any(a.keyword or a.star for a in call.args):
        return False
    model = cst.Module([]).code_for_node(call.func)
    owner = scope.owners.get(region.pset)
    if owner is None or owner != model or model not in scope.models:
        return False
    rest = [s for s in region.stmts if s is not stmt]
    for other in rest:
        called = called_models(other, scope)
        if called is None or owner in called:
            return False
    region.stmts = rest
    region.vjp_stmt = stmt
    region.vjp_name = assign.targets[0].target.value
    region.impure = []
    return bool(rest)


def _paren(expr: cst.BaseExpression) -> cst.BaseExpression:
    if (
        isinstance(expr, (cst.BinaryOperation, cst.BooleanOperation, cst.IfExp))
        and not expr.lpar
    ):
        return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return expr


def _place(region: Region, scope: ScopeInfo, anchor: cst.CSTNode | None = None) -> bool:
    """Choose where the single call to ``grad_fn`` goes, so every statement still sees what it saw."""
    block = list(region.block)
    positions = {id(s): block.index(s) for s in region.stmts}
    first, last = min(positions.values()), max(positions.values())
    if anchor is not None:
        last = block.index(anchor)
    own = {id(e.stmt) for e in region.backwards}
    between = [
        block[i]
        for i in range(first, last + 1)
        if id(block[i]) not in positions
        and block[i] is not anchor
        and id(block[i]) not in own
    ]
    if not between:
        region.call_at = block[last]
        return True
    members = [(positions[id(s)], s, usage(s)) for s in region.stmts]
    impure: list[cst.CSTNode] = []

    def conflicts(at_end: bool) -> set[int] | None:
        dup: set[int] = set()
        for stmt in between:
            i = block.index(stmt)
            other = usage(stmt)
            other_writes = other.writes | other.mutates
            moved = [(j, s, u) for j, s, u in members if (j < i if at_end else j > i)]
            for j, s, u in moved:
                writes = u.writes | u.mutates
                if other_writes & (set(u.read_names) | writes) or _barrier(
                    stmt, s, scope
                ):
                    return None
                if set(other.read_names) & writes:
                    if (
                        at_end
                        and is_pure(s, scope)
                        and not _rebound_between(s, block, j, last)
                    ):
                        dup.add(id(s))
                    else:
                        impure.append(s)
                        return None
        return dup

    dup = conflicts(True)
    if dup is not None:
        region.copies = dup
        region.call_at = block[last]
        return True
    if anchor is None and conflicts(False) == set():
        region.call_at = block[first]
        return True
    region.impure = list(dict.fromkeys(impure))
    if impure:
        region.problem = (
            "TM923",
            "this forward computation would have to run twice (its values are used before the step and differentiated after it); a model with state (BatchNorm) or randomness (dropout) would then differ",
        )
    else:
        region.problem = (
            "TM926",
            "other statements are interleaved with the forward computation and use its values",
        )
    return False


def called_models(stmt: cst.CSTNode, scope: ScopeInfo) -> set[str] | None:
    """Models a statement calls; None when it calls something unknown (which could change a model)."""
    models: set[str] = set()
    for node in ast.walk(parse(stmt)):
        if not isinstance(node, ast.Call):
            continue
        name = dotted(node.func)
        if name is None:
            if (
                isinstance(node.func, ast.Attribute)
                and node.func.attr in PREP_METHODS | TENSOR_MATH
            ):
                continue
            return None
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


def _barrier(stmt: cst.CSTNode, moved: cst.CSTNode, scope: ScopeInfo) -> bool:
    """Whether ``moved`` may not cross ``stmt`` because ``stmt`` can change what ``moved`` computes."""
    event = scope.events.get(id(stmt))
    moved_models = called_models(moved, scope)
    if event is None and not isinstance(stmt, cst.SimpleStatementLine):
        from .gradstate import leaves

        inner = [s for s in leaves([stmt]) if isinstance(s, cst.SimpleStatementLine)]
        if inner and all(
            scope.events.get(id(s)) is not None
            and scope.events[id(s)].kind
            in (
                "reset",
                "backward",
                "clip_norm",
                "clip_value",
                "unscale",
                "scaler_update",
            )
            for s in inner
        ):
            return False
    if event is not None:
        if event.kind in ("step", "scaler_step", "manual", "closure_step"):
            owner = (
                scope.owners.get(event.target)
                if event.kind != "manual"
                else event.target
            )
            return moved_models is None or owner is None or owner in moved_models
        return False
    if has_random(stmt, scope) and (
        has_random(moved, scope)
        or moved_models is None
        or any(not scope.is_pure_model(m) for m in moved_models)
    ):
        return True
    other_models = called_models(stmt, scope)
    if other_models is None:
        return bool(moved_models is None or moved_models)
    if moved_models is None:
        return bool(other_models)
    shared = other_models & moved_models
    return any(not scope.is_pure_model(m) for m in shared)


def _rebound_between(stmt: cst.CSTNode, block: list, start: int, end: int) -> bool:
    reads = set(usage(stmt).read_names)
    for other in block[start + 1 : end + 1]:
        found = usage(other)
        if reads & (found.writes | found.mutates):
            return True
    return False


def _signature(region: Region, scope: ScopeInfo, free: dict[str, bool]) -> None:
    loop = region.loop
    if loop is not None:
        bound = loop_target_names(loop)
        for child in loop.body.body:
            for stmt in _walk(child):
                bound |= (
                    usage(stmt).writes
                    if isinstance(stmt, cst.SimpleStatementLine)
                    else set()
                )
            bound |= _compound_targets(child)
    else:
        bound = set()
        for child in scope.body:
            for stmt in _walk(child):
                if isinstance(stmt, cst.SimpleStatementLine):
                    bound |= usage(stmt).writes
    region_writes: list[str] = []
    region_reads: Counter = Counter()
    order: list[str] = list(
        exposed_reads(
            [
                *region.stmts,
                *(
                    cst.SimpleStatementLine([cst.Expr(e.loss)])
                    for e in region.backwards
                ),
            ]
        )
    )
    for stmt in region.stmts:
        found = usage(stmt)
        for name in sorted(found.writes):
            if name not in region_writes:
                region_writes.append(name)
        region_reads.update(_name_loads(parse(stmt)))
    for event in region.backwards:
        region_reads.update(_name_loads(parse(event.stmt)))
    fixed = scope.models | scope.losses | set(scope.owners)
    region.params = [n for n in order if n in bound and n not in fixed]
    region.maybe_unbound = [
        n for n in region.params if not _bound_before(n, region, scope)
    ]
    total = scope.reads()
    aux = []
    for name in _ordered_writes(region):
        if name == region.first_name or name == "_":
            continue
        outside_reads = total[name] - region_reads[name]
        if id_in_copies(region, name):
            outside_reads = total[name]
        if outside_reads > 0 or name in region.params:
            aux.append(name)
    region.aux = aux


def _bound_before(name: str, region: Region, scope: ScopeInfo) -> bool:
    """Whether every path to the call binds ``name`` (a loop target, or an unconditional assignment)."""
    if name in scope.function_params:
        return True
    place = scope.places[id(region.call_at)]
    loop = place.loop
    while loop is not None:
        if name in loop_target_names(loop):
            return True
        loop = scope.places[id(loop)].loop
    members = {id(s) for s in region.stmts} - region.copies
    for stmt, _ in _chain(place, scope, scope.body):
        if (
            isinstance(stmt, cst.SimpleStatementLine)
            and id(stmt) not in members
            and name in usage(stmt).writes
        ):
            return True
    return False


def id_in_copies(region: Region, name: str) -> bool:
    return False


def _ordered_writes(region: Region) -> list[str]:
    names: list[str] = []
    for stmt in region.stmts:
        for node in ast.walk(parse(stmt)):
            if (
                isinstance(node, ast.Name)
                and isinstance(node.ctx, ast.Store)
                and node.id not in names
            ):
                names.append(node.id)
    return names


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
