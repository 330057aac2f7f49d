"""The forward region of a gradient: the slice of statements from the leaves to the output."""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext
from .model import (
    TENSOR_METHODS,
    Block,
    Site,
)
from .names import (
    PURE_BUILTINS,
    binds,
    calls,
    graph_reads,
    in_place_target,
    is_simple_assignment,
    reads,
)
from .nodes import (
    _ReplaceNode,
)
from .state import no_grad_statements


class ForwardRegion:
    """Methods of GradientSitesRule (a mixin)."""

    def _slice(
        self,
        out: list,
        needed: set[str],
        stop: set[str],
        block: Block,
        ctx,
        statement,
        order=None,
    ):
        needed = set(needed)
        params: set[str] = set()
        region: list[int] = []
        for j in range(len(out) - 1, -1, -1):
            params |= needed & stop
            needed -= stop
            s = out[j]
            bound = binds(s)
            if not bound & needed:
                continue
            if is_simple_assignment(s) or id(s) in self.pure:
                for leaf_name in reads(s) & set(block.leaves):
                    if j < block.leaves[leaf_name].position:
                        self._fail(
                            ctx,
                            statement,
                            f"`{leaf_name}` is used before it requires grad",
                        )
                        return None
                region.append(j)
                needed = (needed - bound) | graph_reads(s)
            elif isinstance(s, (cst.FunctionDef, cst.ClassDef)) or (
                isinstance(s, cst.SimpleStatementLine)
                and all(isinstance(x, (cst.Import, cst.ImportFrom)) for x in s.body)
            ):
                needed -= bound
            else:
                self._fail(
                    ctx,
                    statement,
                    "the output is computed by a compound statement (loop, branch or with)",
                )
                return None
        params |= needed & stop
        if params:
            region = self._dependent(out, sorted(region), params)
        inputs = list(order or ())
        ordered = sorted(
            params,
            key=lambda n: (
                (0, block.leaves[n].rank, "")
                if n in block.leaves
                else (1, inputs.index(n) if n in inputs else len(inputs), n)
            ),
        )
        return sorted(region), ordered

    def _tensor_closures(
        self, emitted: list, params: list[str], out: list, ctx: ModuleContext
    ) -> list[str]:
        """Names the extracted function reads from outside, other than modules and functions."""
        functions = set(self.taken) | {
            s.name.value for s in out if isinstance(s, (cst.FunctionDef, cst.ClassDef))
        }
        ignored = (
            functions
            | set(ctx.aliases)
            | PURE_BUILTINS
            | {"mindspore", "None", "True", "False"}
        )
        for fdef in emitted:
            if isinstance(fdef, cst.FunctionDef):
                local = set(params)
                for statement in fdef.body.body:
                    local |= binds(statement)
                return sorted(reads(fdef.body) - local - ignored)
        return []

    @staticmethod
    def _dependent(out: list, region: list[int], params: set[str]) -> list[int]:
        """The region statements that depend on the parameters; the others stay closures,
        unless the function also assigns their names (which would make them local)."""
        dependent = set(params)
        kept: list[int] = []
        for j in region:
            if reads(out[j]) & dependent:
                kept.append(j)
                dependent |= binds(out[j])
        while True:
            local = set()
            for j in kept:
                local |= binds(out[j])
            extra = [j for j in region if j not in kept and binds(out[j]) & local]
            if not extra:
                return sorted(kept)
            kept.extend(extra)

    @staticmethod
    def _in_place_update(out: list, name: str, block: Block, ctx: ModuleContext):
        """A statement after ``name`` became a leaf that updates it in place outside ``no_grad``."""
        leaf = block.leaves.get(name)
        if leaf is None:
            return None
        for s in out[leaf.position :]:
            if id(s) in no_grad_statements(ctx) or not isinstance(
                s, cst.SimpleStatementLine
            ):
                continue
            for small in s.body:
                if (
                    isinstance(small, cst.AugAssign)
                    and isinstance(small.target, cst.Name)
                    and small.target.value == name
                ):
                    return s
                if isinstance(small, cst.Assign) and any(
                    isinstance(t.target, cst.Subscript)
                    and isinstance(t.target.value, cst.Name)
                    and t.target.value.value == name
                    for t in small.targets
                ):
                    return s
            for call in calls(s):
                target = in_place_target(call)
                if isinstance(target, cst.Name) and target.value == name:
                    return s
        return None

    def _unreachable_leaf(self, out: list, region_idx: list[int], block: Block) -> bool:
        """The region starts at a leaf whose name was rebound inside it, and nothing else read it."""
        region = set(region_idx)
        found = False
        for index in region_idx:
            name = block.leaf_statements.get(id(out[index]))
            if name is None or name in block.leaves:
                continue
            rebind = next(
                (k for k in region_idx if k > index and name in binds(out[k])), None
            )
            if rebind is None:
                return False
            for k in range(index + 1, rebind + 1):
                if name in reads(out[k]) and k not in region:
                    return False
            found = True
        return found

    def _independent(self, s, region_binds: set[str], region_reads: set[str]) -> bool:
        if binds(s) & (region_binds | region_reads):
            return False
        if reads(s) & region_binds:
            return False
        for call in calls(s):
            if isinstance(call.func, cst.Name) and call.func.value in PURE_BUILTINS:
                continue
            if reads(call) & region_reads:
                return False
        return True

    def _hook_on(self, s, region_binds: set[str]) -> bool:
        if (
            not isinstance(s, cst.SimpleStatementLine)
            or len(s.body) != 1
            or not isinstance(s.body[0], cst.Expr)
        ):
            return False
        call = s.body[0].value
        return (
            isinstance(call, cst.Call)
            and isinstance(call.func, cst.Attribute)
            and call.func.attr.value == "register_hook"
            and isinstance(call.func.value, cst.Name)
            and call.func.value.value in region_binds
        )

    def _pure(self, s, ctx: ModuleContext) -> bool:
        if id(s) in self.pure:
            return True
        for call in calls(s):
            func = call.func
            if isinstance(func, cst.Call):
                continue
            if isinstance(func, cst.Name) and func.value in PURE_BUILTINS:
                continue
            name = ctx.dotted(func)
            if name is not None and (
                ctx.is_torch_name(func) or name.startswith("mindspore.")
            ):
                continue
            if isinstance(func, cst.Attribute) and func.attr.value in TENSOR_METHODS:
                continue
            return False
        return True

    @staticmethod
    def _only_site_reads(statement, site: Site, output: str) -> bool:
        """The statement reads ``output`` only as the output of its gradient call."""
        rest = statement.visit(_ReplaceNode(site.call, cst.Name("None")))
        return output not in reads(rest)

    def _later_reads(
        self,
        rest,
        out,
        statement,
        site,
        body,
        scope,
        loop,
        module,
        ctx,
        params,
        block_later=None,
    ) -> set[str]:
        names: set[str] = set()
        output = (
            site.outputs[0].value
            if len(site.outputs) == 1 and isinstance(site.outputs[0], cst.Name)
            else None
        )
        for s in rest:
            again = self._site(s, ctx)
            # A later gradient of the same output reuses the extracted function.
            if (
                again is not None
                and output is not None
                and len(again.outputs) == 1
                and again.outputs[0].deep_equals(site.outputs[0])
                and (again.kind == "backward" or set(again.inputs or ()) <= set(params))
                and (
                    again.kind == "backward" or self._only_site_reads(s, again, output)
                )
            ):
                names |= reads(again.sens) if again.sens is not None else set()
                continue
            names |= reads(s)
        if site.sens is not None:
            names |= reads(site.sens)
        if site.kind == "grad":
            small = statement.body[0]
            names |= reads(small.visit(_ReplaceNode(site.call, cst.Name("None"))))
        for s in out:
            if isinstance(s, (cst.FunctionDef, cst.ClassDef)):
                names |= reads(s)
        if block_later is not None:
            names |= block_later
        elif not scope or loop or module:
            # A module's names are its globals: any importer or reader may use them afterwards.
            names |= {"*"}
        return names if "*" not in names else names | self._all_names(body)

    @staticmethod
    def _all_names(body) -> set[str]:
        names: set[str] = set()
        for s in body:
            names |= binds(s) | reads(s)
        return names

    def _foreign_grad_reads(self, rest, block: Block, ctx) -> bool:
        known = set(block.leaves) | block.nonleaf | set(block.requires)

        class _Find(cst.CSTVisitor):
            def __init__(self) -> None:
                self.found = False

            def visit_Attribute(self, node: cst.Attribute) -> None:
                base = node.value
                if (
                    node.attr.value == "grad"
                    and not (isinstance(base, cst.Name) and base.value in known)
                    and ctx.qualname(base) is None
                ):
                    self.found = True

        finder = _Find()
        for s in rest:
            s.visit(finder)
        return finder.found

    @staticmethod
    def _carried(statements: list) -> set[str]:
        """Names the body reads before (re)binding them: values carried from the last iteration."""
        bound: set[str] = set()
        carried: set[str] = set()
        for statement in statements:
            carried |= reads(statement) - bound
            bound |= binds(statement)
        return carried & bound
