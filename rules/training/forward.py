"""The forward region of a backward: the statements of the iteration whose values flow into the loss.

The region is the backward slice of the loss, cut where the flow carries no gradient (``.detach()``,
``.item()``, ``torch.no_grad()``) and at data preparation (``data.to(device)``, ``torch.randn(...)``),
which stays where it is. The region becomes ``forward_fn``: its parameters are the names it reads
that the loop binds, the other names it reads stay closures, and the names it binds that other code
reads come back as auxiliary outputs.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Sequence

import libcst as cst

from ...migrator.aliases import dotted, resolve
from ..common.dataflow import exposed_reads, parse, usage
from .events import Event
from .gradstate import Place
from .placement import _place, _through_vjp
from .scope import (
    HIDDEN,
    PREP_BUILTINS,
    PREP_METHODS,
    PREP_TORCH,
    Region,
    ScopeInfo,
    _compound_targets,
    has_random,
    _name_loads,
    _walk,
    loop_target_names,
    uses_parameters,
)


def _expr_usage(expr: cst.BaseExpression):
    return usage(cst.SimpleStatementLine([cst.Expr(expr)]))


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
        self._bound: set[str] | None = None

    def statement(self, stmt: cst.CSTNode) -> bool:
        if isinstance(stmt, cst.FunctionDef) and not stmt.decorators:
            return True  # binds a function; what it computes runs where it is called
        if isinstance(stmt, cst.If):
            return self._branch(stmt)
        if _binds_nothing(stmt):
            return True
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

    def _branch(self, stmt: cst.If) -> bool:
        """An ``if`` whose test calls no model and whose branches only prepare data (a loss scale
        chosen from the batch size): what it binds carries no parameter on either path."""
        test = ast.parse(
            cst.Module([]).code_for_node(stmt.test).strip(), mode="eval"
        ).body
        if not self._test(test):
            return False
        if not self._reads_prepared(stmt.test):
            return False
        written: set[str] = set()
        blocks = [stmt.body.body]
        if isinstance(stmt.orelse, cst.If):
            blocks.append([stmt.orelse])
        elif isinstance(stmt.orelse, cst.Else):
            blocks.append(stmt.orelse.body.body)
        # `self.outside` is the caller's set, updated in place (the caller keeps it too)
        before = set(self.outside)
        prepared = True
        for block in blocks:
            self._reset(before)
            for inner in block:
                if not (
                    isinstance(inner, cst.If)
                    or _binds_nothing(inner)
                    or self._reads_prepared(inner)
                ) or not self.statement(inner):
                    prepared = False
                    break
                self.outside |= usage(inner).writes
            if not prepared:
                break
            written |= self.outside - before
        self._reset(before | written if prepared else before)
        return prepared

    def _reset(self, names: set[str]) -> None:
        self.outside.clear()
        self.outside.update(names)

    def _reads_prepared(self, node: cst.CSTNode) -> bool:
        """Every value ``node`` reads is prepared data (the branch's earlier statements count), or
        a name the function never binds (an argument, a module): never a value an earlier
        statement of the step computed."""
        bound = self._bound_in_scope()
        tree = parse(node) if isinstance(node, cst.BaseStatement) else _expression(node)
        return not any(
            name in bound and name not in self.outside for name in _value_reads(tree)
        )

    def _bound_in_scope(self) -> set[str]:
        """Every name the scope binds (computed on first use: most steps have no branch)."""
        if self._bound is None:
            node = self.scope.node
            self._bound = usage(
                node.body if isinstance(node, cst.FunctionDef) else node
            ).writes
        return self._bound

    def _test(self, node: ast.AST) -> bool:
        """A branch test reads data only: comparisons and boolean operations of prepared values."""
        if isinstance(node, ast.BoolOp):
            return all(self._test(v) for v in node.values)
        if isinstance(node, ast.UnaryOp):
            return self._test(node.operand)
        if isinstance(node, ast.Compare):
            return all(self.loose(v) for v in (node.left, *node.comparators))
        return self.loose(node)

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
            # a shape, dtype or device is no value a gradient flows through
            return node.attr in _METADATA or self.strict(node.value)
        if isinstance(node, ast.Subscript):
            return self.strict(node.value) and self.loose(node.slice)
        if isinstance(node, (ast.Tuple, ast.List)):
            return all(self.strict(e) for e in node.elts)
        if isinstance(node, ast.BinOp):
            return self.strict(node.left) and self.strict(node.right)
        if isinstance(node, ast.IfExp):
            return (
                self._test(node.test)
                and self.strict(node.body)
                and self.strict(node.orelse)
            )
        if isinstance(node, (ast.BoolOp, ast.Compare)):
            return self._test(node)
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
            if (
                isinstance(node.func, ast.Attribute)
                and callee is not None
                and callee.split(".")[0] in self.scope.imported_modules
                and callee.split(".")[0] not in self.scope.models
            ):
                # a function of another module, given only prepared values: it cannot reach
                # this scope's models
                return all(self.strict(a) for a in self._args(node))
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


def _fixed_params(loop: cst.CSTNode, scope: ScopeInfo) -> set[str]:
    """The function's parameters the loop never rebinds, models left out: each holds, in every
    iteration, what the caller passed, so no earlier iteration's forward pass flows in."""
    rebound = usage(loop).writes
    return set(scope.function_params) - scope.models - rebound


def _imports_only(stmt: cst.CSTNode) -> bool:
    """An import binds a module: a definition outside the forward region, never a computation."""
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(small, (cst.Import, cst.ImportFrom)) for small in stmt.body
    )


def build_region(backwards: list[Event], pset: str, scope: ScopeInfo) -> Region:
    last = backwards[-1]
    place = scope.places[id(last.stmt)]
    loop = place.loop
    stop = loop.body.body if loop is not None else scope.body
    chain = _chain(place, scope, stop)
    region = Region(backwards, pset, [], place.block, last.stmt, loop=loop)
    # Data preparation, in program order.
    outside = (
        loop_target_names(loop) | _fixed_params(loop, scope)
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
        if is_prep[id(stmt)] or not diff or defines_model or _imports_only(stmt):
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
        placed = (
            not region.impure
            and len(backwards) == 1
            and _place_absorbed(region, members, is_prep, scope, anchor)
        )
        shared = region.impure[0] if len(region.impure) == 1 else None
        if placed:
            shared = None
        if shared is not None and _through_vjp(region, shared, scope):
            region.problem = None
            placed = _place(region, scope, anchor)
        elif (
            not placed
            and anchor is not None
            and _expression_moves(region, members, anchor)
        ):
            # nothing between the forward and the backward touches the scaler: evaluate the
            # expression with the forward computation
            problem = region.problem
            region.problem, region.impure = None, []
            placed = _place(region, scope, None)
            if not placed:
                region.problem = region.problem or problem
        if not placed:
            return region
    _signature(region, scope, {**dict.fromkeys(outside_defs, False), **needed})
    region.aux.extend(fresh for fresh, _ in region.snapshots.values())
    if region.vjp_stmt is not None:
        name = region.vjp_name
        region.params = [name] + [p for p in region.params if p != name]
    return region


def _place_absorbed(
    region: Region, members: list, is_prep: dict[int, bool], scope: ScopeInfo, anchor
) -> bool:
    """Place the region with the data statements it is interleaved with; on failure the region
    is left as the first placement left it."""
    kept = (region.problem, region.impure)
    if not _absorb_prepared(region, members, is_prep, scope):
        return False
    region.problem = None
    if _place(region, scope, anchor):
        return True
    region.stmts = members
    region.problem, region.impure = kept
    return False


def _absorb_prepared(
    region: Region, members: list, is_prep: dict[int, bool], scope: ScopeInfo
) -> bool:
    """A data statement between the forward statements that a later one reads
    (``y = model(x); x = normalize(x); loss = f(y, vgg(x))``) moves into the forward
    computation with them, in program order: it binds no parameter and runs once either way.
    Only where it draws no random number and the statements it reads stay put."""
    block = list(region.block)
    if any(s not in block for s in members):
        return False
    positions = sorted(block.index(s) for s in members)
    member_ids = {id(s) for s in members}
    absorbed: list[cst.CSTNode] = []
    for i in range(positions[0] + 1, positions[-1]):
        stmt = block[i]
        if id(stmt) in member_ids or not is_prep.get(id(stmt), False):
            continue
        if not isinstance(stmt, cst.SimpleStatementLine) or has_random(stmt, scope):
            continue
        writes = usage(stmt).writes
        later = [s for s in block[i + 1 : positions[-1] + 1] if id(s) in member_ids]
        if any(writes & set(usage(s).read_names) for s in later):
            absorbed.append(stmt)
    if not absorbed:
        return False
    chosen = member_ids | {id(s) for s in absorbed}
    region.stmts = [s for s in block if id(s) in chosen]
    return True


def _expression_moves(region: Region, members: list, backward: cst.CSTNode) -> bool:
    """Whether the loss expression (``loss_scaler.scale(loss)``) may be evaluated with the forward
    computation rather than where the backward stands: the statements between them neither
    mention the names it reads beyond the loss (the scaler) nor change the loss."""
    from .summaries import names_in

    block = list(region.block)
    if backward not in block:
        return False
    end = block.index(backward)
    start = max(block.index(s) for s in members if s in block) if members else end
    written: set[str] = set()
    for stmt in members:
        found = usage(stmt)
        written |= found.writes
    reads = names_in(region.first)
    others = reads - written
    for stmt in block[start + 1 : end]:
        found = usage(stmt)
        if names_in(stmt) & others or (found.writes | found.mutates) & reads:
            return False
    return True


def _paren(expr: cst.BaseExpression) -> cst.BaseExpression:
    if (
        isinstance(expr, (cst.BinaryOperation, cst.BooleanOperation, cst.IfExp))
        and not expr.lpar
    ):
        return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return expr


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
        loads = _name_loads(parse(event.stmt))
        if isinstance(event.loss, cst.IfExp):
            # ``scaler.scale(loss) if T else loss`` stands for one read of the loss in the call
            loads = Counter(set(loads))
        region_reads.update(loads)
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


def _expression(node: cst.BaseExpression) -> ast.AST:
    return ast.parse(cst.Module([]).code_for_node(node).strip(), mode="eval")


# Attributes that describe a tensor without holding its values.
_METADATA = frozenset({"shape", "dtype", "device", "ndim"})


def _value_reads(tree: ast.AST) -> list[str]:
    """The names whose values ``tree`` reads: a name read only for its shape, dtype or device
    (``input.shape[0]``) does not count."""
    found: list[str] = []
    pending = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Attribute) and node.attr in _METADATA:
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            found.append(node.id)
        pending.extend(ast.iter_child_nodes(node))
    return found


def _binds_nothing(stmt: cst.CSTNode) -> bool:
    """``raise``, ``assert`` and ``pass``: what they read flows nowhere."""
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(small, (cst.Raise, cst.Assert, cst.Pass)) for small in stmt.body
    )
