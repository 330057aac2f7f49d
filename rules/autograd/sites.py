"""TM101 `backward()` and TM102 `torch.autograd.grad` become `mindspore.grad` of an extracted function.

Works on one statement list at a time (a module, function or loop body), in program order:

- *leaves* are the tensors made with ``requires_grad=True``, ``Variable(..., requires_grad=True)``
  or ``requires_grad_()`` in the same list; each has a gradient state: none, zero, or a variable
  (``x_grad``) that holds what torch keeps in ``x.grad``;
- at a gradient site the *forward region* is the backward slice of the output down to the leaves
  (or the ``inputs`` of ``autograd.grad``): the simple assignments whose values flow into it;
- the region becomes ``def <out>_fn(<leaves>)``; when the statements between it and the site do not
  depend on it, it is moved (run once, as ``value_and_grad``); otherwise it is copied, which is
  allowed only for side-effect-free code;
- later reads of ``x.grad`` become the gradient variables; repeated backwards add up;
- a loop whose body differentiates leaves of the enclosing list (gradient descent by hand) is
  converted with them when every iteration leaves the gradients as it found them;
- ``autograd.grad(out, model.parameters())`` becomes ``grad_position=None, weights=...``.
"""

from __future__ import annotations

import bisect

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.engine import visit
from ...migrator.findings import NOTE, WARNING
from ...migrator.rule import GRADIENT, Rule, register
from . import findings as tm9
from .emit import GradientEmitter
from .model import (
    SITE_KWARGS_BACKWARD,
    SITE_KWARGS_GRAD,
    SITE_NAMES,
    Block,
    Extracted,
    Leaf,
    Site,
)
from .names import attribute_index, binds, call_index, calls, in_place_target, reads
from .nodes import (
    _elements,
    _is_backward_method,
    _is_true,
    _kw,
    _ReplaceNode,
    _self_assignment,
    _StopGradient,
    _tuple,
)
from .region import ForwardRegion
from .sites_docs import AUTOGRAD_GRAD, BACKWARD, RETAIN_GRAPH
from .state import (
    LEAVES,
    claimed,
    leaf_names_of,
    may_name,
    no_grad_statements,
    original_of,
)
from .tracking import GradStateTracking


def _is_parameters_call(node: cst.BaseExpression) -> bool:
    """``<module>.parameters()``: every parameter of a module, in registration order."""
    return (
        isinstance(node, cst.Call)
        and not node.args
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "parameters"
    )


def _single(node: cst.BaseExpression | None) -> cst.BaseExpression | None:
    """The element of a one-element list or tuple display, else the node itself."""
    if isinstance(node, (cst.List, cst.Tuple)) and len(node.elements) == 1:
        element = node.elements[0]
        if not isinstance(element, cst.StarredElement):
            return element.value
    return node


_BACKWARD_ORDER = ("tensors", "grad_tensors", "retain_graph", "create_graph")


def _split_backward_lists(body: list, ctx: ModuleContext) -> list:
    """`torch.autograd.backward([a, b], [ga, gb])` as `backward(a, ga, retain_graph=True)` then
    `backward(b, gb)`: torch adds the gradients of the tensors into `.grad` either way."""
    out: list = []
    for statement in body:
        out.extend(_split_backward(statement, ctx) or [statement])
    return out


def _split_backward(statement: cst.CSTNode, ctx: ModuleContext) -> list | None:
    if not (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, cst.Call)
    ):
        return None
    call = statement.body[0].value
    if ctx.qualname(call.func) != "torch.autograd.backward" or any(
        a.star for a in call.args
    ):
        return None
    values = dict(
        zip(_BACKWARD_ORDER, [a.value for a in call.args if a.keyword is None])
    )
    values.update({a.keyword.value: a.value for a in call.args if a.keyword})
    tensors, grads = values.get("tensors"), values.get("grad_tensors")
    if set(values) - set(_BACKWARD_ORDER) or not isinstance(
        tensors, (cst.List, cst.Tuple)
    ):
        return None
    items = list(tensors.elements)
    if isinstance(grads, cst.Name) and grads.value == "None":
        grads = None
    sens = [None] * len(items) if grads is None else None
    if isinstance(grads, (cst.List, cst.Tuple)) and len(grads.elements) == len(items):
        sens = [e.value for e in grads.elements]
    if (
        len(items) < 2
        or sens is None
        or any(isinstance(e, cst.StarredElement) for e in items)
        or any(isinstance(g, cst.StarredElement) for g in sens)
    ):
        return None
    lines = []
    for index, (item, grad) in enumerate(zip(items, sens)):
        args = [cst.Arg(item.value)] + ([cst.Arg(grad)] if grad is not None else [])
        retain = (
            cst.Name("True") if index < len(items) - 1 else values.get("retain_graph")
        )
        for name, value in (
            ("retain_graph", retain),
            ("create_graph", values.get("create_graph")),
        ):
            if value is not None:
                args.append(
                    cst.Arg(
                        value,
                        keyword=cst.Name(name),
                        equal=cst.AssignEqual(
                            whitespace_before=cst.SimpleWhitespace(""),
                            whitespace_after=cst.SimpleWhitespace(""),
                        ),
                    )
                )
        line = statement.with_changes(
            body=[cst.Expr(call.with_changes(args=args))],
            leading_lines=statement.leading_lines if index == 0 else (),
        )
        ctx.copy_position(line, statement)
        lines.append(line)
    return lines


@register
class GradientSitesRule(GradStateTracking, GradientEmitter, ForwardRegion, Rule):
    meta = BACKWARD
    extra = (AUTOGRAD_GRAD, RETAIN_GRAPH)
    stage = GRADIENT
    order = 120
    triggers = (
        "backward",
        "autograd",
        "requires_grad",
        ".grad",
        "retain_grad",
        "register_hook",
    )
    # The gradient state it follows through a function: `.grad` itself, not
    # `.grad_checkpointing`.
    scope_words = (
        "backward",
        "autograd",
        "requires_grad",
        "requires_grad_",
        ".grad",
        ".grad_fn",
        "retain_grad",
        "register_hook",
    )
    methods = frozenset({"backward", "retain_grad", "register_hook"})
    torch_only_methods = frozenset({"backward", "retain_grad"})
    # Reads of `.requires_grad` make a statement list worth tracking: its flags are known.
    watched_attributes = frozenset({"requires_grad"})

    def __init__(self) -> None:
        # Statements this rule emitted (gradient calls: no side effects) and functions it extracted.
        self.pure: set[int] = set()
        self.defs: set[int] = set()
        self.taken: set[str] = set()
        self.deferring = False
        self.rank = 0
        self.sites_in_module: bool | None = None
        self.reads_only = False
        # The calls and attribute names of each statement, walked once for the module.
        self.calls_of = call_index()
        self.attributes_of = attribute_index()

    # -- traversal ----------------------------------------------------------------------------
    def leave_IndentedBlock(
        self, original, updated: cst.IndentedBlock, ctx: ModuleContext
    ):
        if not self._enabled(ctx):
            return updated
        owner = ctx.stack[-1] if ctx.stack else None
        scope = isinstance(owner, cst.FunctionDef)
        loop = isinstance(owner, (cst.For, cst.While))
        # In a nested block, a gradient whose leaves are outside waits for the enclosing block.
        self.deferring = not scope
        try:
            body = self._process(list(updated.body), ctx, scope=scope, loop=loop)
        finally:
            self.deferring = False
        if scope:
            self._report_left(body if body is not None else updated.body, ctx)
        if body is None:
            return updated
        return updated.with_changes(
            body=body or [cst.SimpleStatementLine([cst.Pass()])]
        )

    def leave_Module(self, original, updated: cst.Module, ctx: ModuleContext):
        if self._enabled(ctx):
            body = self._process(
                list(updated.body), ctx, scope=True, loop=False, module=True
            )
            if body is not None:
                updated = updated.with_changes(body=body)
        self._report_grad_fn(ctx)
        if self._enabled(ctx):
            self._report_left(updated.body, ctx)
        return updated

    def _enabled(self, ctx: ModuleContext) -> bool:
        """Whether the module has gradient sites, leaves or `.requires_grad` reads at all (most
        files have none)."""
        if self.sites_in_module is None:
            names = {use.name for use in ctx.census.uses}
            self.sites_in_module = bool(names & SITE_NAMES)
        self.reads_only = False
        if self.sites_in_module or ctx.state.get(LEAVES):
            return True
        # No gradient here: only the flags read are answered (the reports are for gradients).
        sites = ctx.census.attributes.get("requires_grad")
        self.reads_only = sites is not None and bool(sites.lines)
        return self.reads_only

    @staticmethod
    def _report_grad_fn(ctx: ModuleContext) -> None:
        """TM912 for every ``.grad_fn`` read, wherever it stands: no MindSpore tensor has one."""
        if ".grad_fn" not in ctx.source:
            return
        for number, text in enumerate(ctx.source.splitlines(), start=1):
            code = text.split("#", 1)[0]
            column = code.find(".grad_fn")
            if column < 0 or any(
                f.rule == "TM912" and f.line == number for f in ctx.findings
            ):
                continue
            ctx.report(
                "TM912",
                "`.grad_fn` has no MindSpore form: tensors carry no tape",
                tm9.GRAD_FLAGS.use_instead,
                line=number,
                column=len(text) - len(text.lstrip()),
            )

    @staticmethod
    def _may_hold_site(ctx: ModuleContext) -> bool:
        """Whether a `.backward(...)` or `torch.autograd` call can stand in the tree."""
        return may_name(ctx, "backward") or may_name(ctx, "autograd")

    # -- names -----------------------------------------------------------------------------------
    def _fresh(self, base: str, ctx: ModuleContext) -> str:
        name, i = base, 2
        while name in ctx.bound_names or name in ctx.aliases or name in self.taken:
            name, i = f"{base}_{i}", i + 1
        self.taken.add(name)
        return name

    # -- site detection ------------------------------------------------------------------------
    def _site(self, statement: cst.CSTNode, ctx: ModuleContext) -> Site | None:
        if (
            not isinstance(statement, cst.SimpleStatementLine)
            or len(statement.body) != 1
        ):
            return None
        small = statement.body[0]
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            call = small.value
            func = call.func
            if _is_backward_method(func, ctx):
                positional = [a for a in call.args if a.keyword is None]
                if len(positional) > 1 or any(
                    a.keyword is not None
                    and a.keyword.value not in SITE_KWARGS_BACKWARD
                    for a in call.args
                ):
                    return None
                sens = (
                    positional[0].value
                    if positional
                    else (
                        _kw(call, "gradient").value if _kw(call, "gradient") else None
                    )
                )
                return Site("backward", call, [func.value], sens=sens)
            if ctx.qualname(func) == "torch.autograd.backward":
                positional = [a for a in call.args if a.keyword is None]
                tensors = (
                    positional[0].value
                    if positional
                    else (_kw(call, "tensors").value if _kw(call, "tensors") else None)
                )
                grads = (
                    positional[1].value
                    if len(positional) > 1
                    else (
                        _kw(call, "grad_tensors").value
                        if _kw(call, "grad_tensors")
                        else None
                    )
                )
                # `backward([z])`, `backward([z], [g])`: one tensor in a sequence is that tensor
                tensors, grads = _single(tensors), _single(grads)
                if tensors is None or isinstance(tensors, (cst.List, cst.Tuple)):
                    return None
                if isinstance(grads, (cst.List, cst.Tuple)):
                    return None
                if any(
                    a.keyword is not None
                    and a.keyword.value not in SITE_KWARGS_BACKWARD
                    for a in call.args
                ):
                    return None
                return Site("backward", call, [tensors], sens=grads)
        if not may_name(ctx, "autograd"):
            return None
        for call in self.calls_of(statement):
            if ctx.qualname(call.func) == "torch.autograd.grad":
                return self._grad_site(call)
        return None

    def _grad_site(self, call: cst.Call) -> Site | None:
        if any(a.star for a in call.args):
            return None
        positional = [a.value for a in call.args if a.keyword is None]
        named = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        for default_off in ("is_grads_batched", "materialize_grads"):
            # torch's defaults, said explicitly: one vector-Jacobian product, None for unused
            flag = named.pop(default_off, None)
            if flag is not None and not (
                isinstance(flag, cst.Name) and flag.value == "False"
            ):
                return None
        if set(named) - SITE_KWARGS_GRAD:
            return None
        order = [
            "outputs",
            "inputs",
            "grad_outputs",
            "retain_graph",
            "create_graph",
            "only_inputs",
            "allow_unused",
        ]
        values = dict(zip(order, positional))
        values.update(named)
        if "outputs" not in values or "inputs" not in values:
            return None
        weights = None
        if _is_parameters_call(values["inputs"]):
            weights, inputs = values["inputs"], []
        else:
            inputs = _elements(values["inputs"])
            if not all(isinstance(i, cst.Name) for i in inputs):
                return None
        sens = values.get("grad_outputs")
        if sens is not None and isinstance(sens, cst.Name) and sens.value == "None":
            sens = None
        if sens is not None and isinstance(sens, (cst.List, cst.Tuple)):
            items = _elements(sens)
            if len(items) != 1:
                return None
            sens = items[0]
        outputs = _elements(values["outputs"])
        if sens is not None and len(outputs) != 1:
            return None
        allow = values.get("allow_unused")
        if allow is not None and not (
            isinstance(allow, cst.Name) and allow.value in ("True", "False")
        ):
            return None
        return Site(
            "grad",
            call,
            outputs,
            inputs=[i.value for i in inputs],  # type: ignore[attr-defined]
            inputs_tuple=isinstance(values["inputs"], (cst.List, cst.Tuple)),
            sens=sens,
            allow_unused=_is_true(allow),
            weights=weights,
        )

    @staticmethod
    def _ones_like_output(sens, output, ctx: ModuleContext) -> bool:
        """``torch.ones_like(<output>)``: MindSpore's default sensitivity, the same as none."""
        return (
            isinstance(sens, cst.Call)
            and ctx.qualname(sens.func) == "torch.ones_like"
            and len(sens.args) == 1
            and sens.args[0].keyword is None
            and sens.args[0].value.deep_equals(output)
        )

    # -- the statement list ------------------------------------------------------------------
    def _process(
        self,
        body: list,
        ctx: ModuleContext,
        scope: bool,
        loop: bool,
        module: bool = False,
        block: Block | None = None,
    ):
        body = _split_backward_lists(body, ctx)
        relevant = (
            block is not None
            or any(self._site(s, ctx) for s in body)
            or any(leaf_names_of(ctx, s) for s in body)
            or _reads_flags(body, ctx)
        )
        if not relevant:
            return None
        block = block or Block()
        out: list = []
        changed = False
        for index, statement in enumerate(body):
            rest = body[index + 1 :]
            leaf = leaf_names_of(ctx, statement)
            if leaf:
                changed = True
                names, keep = leaf
                for name in binds(statement) | set(names):
                    block.leaves.pop(name, None)
                    block.nonleaf.discard(name)
                self._invalidate(block, binds(statement) | set(names))
                for name in names:
                    self.rank += 1
                    block.leaves[name] = Leaf(len(out), rank=self.rank)
                    block.requires[name] = True
                block.leaf_statements[id(statement)] = names[0]
                if not keep or _self_assignment(statement):
                    block.markers.add(id(statement))
                out.append(statement)
                continue
            if isinstance(statement, (cst.For, cst.While)) and block.leaves:
                converted = self._loop(statement, block, ctx, rest, out, scope, module)
                if converted is not None:
                    out.extend(converted)
                    changed = True
                    continue
            site = self._site(statement, ctx)
            if site is not None and not self._claimed(statement, ctx, body, rest, loop):
                emitted = self._convert(
                    site, statement, out, block, ctx, body, rest, scope, loop, module
                )
                if emitted is not None:
                    changed = True
                    continue
                block.poisoned = True
                for leaf in block.leaves.values():
                    leaf.state = "unknown"
            statement, grad_changed = self._grad_reads(statement, block, ctx)
            changed |= grad_changed
            if statement is None:
                continue
            self._track(statement, block, ctx)
            out.append(statement)
        if block.poisoned:
            # Gradients were left on torch: the leaves keep their flags.
            restored = []
            for statement in out:
                original = (
                    original_of(ctx, statement)
                    if id(statement) in block.leaf_statements
                    else None
                )
                restored.append(original if original is not None else statement)
            out = restored
        else:
            out = [s for s in out if id(s) not in block.markers]
        return out if changed else None

    def _loop(
        self,
        loop_node,
        block: Block,
        ctx: ModuleContext,
        rest: list,
        out: list,
        scope: bool,
        module: bool,
    ):
        """A loop whose body differentiates leaves of this block (gradient descent by hand).

        The body is converted with the block's leaves; it must leave each gradient as it found
        it (none or zero at the end of every iteration), so every iteration starts alike. The
        extracted functions move before the loop."""
        body_block = loop_node.body
        if (
            loop_node.orelse is not None
            or not isinstance(body_block, cst.IndentedBlock)
            or not any(self._site(s, ctx) for s in body_block.body)
            or self._loop_has_step(loop_node)
            or any(id(s) in claimed(ctx) for s in body_block.body)
        ):
            return None
        statements = list(body_block.body)
        later: set[str] = set()
        for other in rest:
            later |= reads(other)
        if block.outer_later is not None:
            later |= block.outer_later
        elif not scope:
            later |= self._all_names(rest + out)
        if module:
            for other in out:
                if isinstance(other, (cst.FunctionDef, cst.ClassDef)):
                    later |= reads(other)
        later |= self._carried(statements)
        if isinstance(loop_node, cst.While):
            later |= reads(loop_node.test)
        start = {name: (leaf.state, leaf.var) for name, leaf in block.leaves.items()}
        inner = Block(
            leaves={
                name: Leaf(0, leaf.state, leaf.var, leaf.rank)
                for name, leaf in block.leaves.items()
            },
            requires=dict(block.requires),
            outer_later=later,
        )
        saved = self.deferring
        self.deferring = False
        try:
            new_body = self._process(
                statements, ctx, scope=False, loop=True, block=inner
            )
        finally:
            self.deferring = saved
        if new_body is None or inner.poisoned:
            return None
        end: dict[str, tuple[str, str]] = {}
        for name, (state, var) in start.items():
            leaf = inner.leaves.get(name)
            if leaf is None:
                self._fail(
                    ctx,
                    loop_node,
                    f"`{name}` is rebound inside the loop, so later iterations differentiate another tensor",
                )
                return None
            if (leaf.state, leaf.var) != (state, var) and not (
                state in ("none", "zero") and leaf.state in ("none", "zero")
            ):
                self._fail(
                    ctx,
                    loop_node,
                    f"the gradient of `{name}` accumulates across iterations (zero it inside the loop)",
                )
                return None
            end[name] = (leaf.state, leaf.var)
        hoisted = [s for s in new_body if id(s) in self.defs]
        kept = [s for s in new_body if id(s) not in self.defs]
        for name, (state, var) in end.items():
            leaf = block.leaves[name]
            if (state, var) != start[name]:
                leaf.state = "unknown"
        new_loop = loop_node.with_changes(
            body=body_block.with_changes(
                body=kept or [cst.SimpleStatementLine([cst.Pass()])]
            )
        )
        ctx.copy_position(new_loop, loop_node)
        if hoisted:
            hoisted[0] = hoisted[0].with_changes(leading_lines=loop_node.leading_lines)
            new_loop = new_loop.with_changes(leading_lines=())
            self.defs.add(id(hoisted[0]))
            ctx.copy_position(hoisted[0], loop_node)
        for name in binds(loop_node):
            block.requires.pop(name, None)
        return [*hoisted, new_loop]

    def _claimed(
        self, statement, ctx: ModuleContext, body: list, rest: list, loop: bool
    ) -> bool:
        if id(statement) in claimed(ctx):
            return True
        # A backward followed by an optimizer step is the training loop's (TM2xx).
        scope = body if loop else rest
        for other in scope:
            for call in self.calls_of(other):
                if (
                    isinstance(call.func, cst.Attribute)
                    and call.func.attr.value == "step"
                ):
                    return True
        return False

    # -- conversion -----------------------------------------------------------------------------
    def _fail(
        self, ctx: ModuleContext, statement, why: str, deferrable: bool = False
    ) -> None:
        if deferrable and self.deferring:
            return
        ctx.report(
            "TM910",
            f"gradient computation not converted: {why}",
            tm9.VALUE_AND_GRAD_IDIOM,
            node=statement,
        )

    def _convert(
        self,
        site: Site,
        statement,
        out: list,
        block: Block,
        ctx,
        body,
        rest,
        scope,
        loop,
        module,
    ):
        if site.weights is not None and site.sens is not None:
            self._fail(ctx, statement, "grad_outputs with module parameters as inputs")
            return None
        if (
            site.sens is not None
            and len(site.outputs) == 1
            and self._ones_like_output(site.sens, site.outputs[0], ctx)
        ):
            site.sens = None
        # What the output expression reads.
        target_reads: set[str] = set()
        for output in site.outputs:
            target_reads |= reads(output)
        stop = set(block.leaves)
        if site.kind == "grad":
            stop |= set(site.inputs or ())
        if any(
            block.leaves[n].state == "unknown" for n in target_reads & set(block.leaves)
        ):
            self._fail(
                ctx,
                statement,
                "an earlier gradient in a nested block leaves `.grad` unknown",
            )
            return None
        # Reuse the function a previous site extracted for the same output (retain_graph).
        reuse = None
        if len(site.outputs) == 1 and isinstance(site.outputs[0], cst.Name):
            reuse = block.extracted.get(site.outputs[0].value)
        if (
            reuse is not None
            and site.kind == "grad"
            and not set(site.inputs or ()) <= set(reuse.params)
        ):
            reuse = None
        reused = reuse is not None
        if reuse is not None:
            params, fname, region, moved = reuse.params, reuse.name, [], False
        else:
            found = self._slice(
                out, target_reads, stop, block, ctx, statement, site.inputs
            )
            if found is None:
                return None
            region_idx, params = found
            if site.kind == "backward" and not params:
                if self._unreachable_leaf(out, region_idx, block):
                    ctx.report(
                        "TM101",
                        "backward removed: its gradient goes only to a tensor no name refers to any more",
                        "Nothing can read that gradient; keep the leaf under its own name to use it.",
                        node=statement,
                        severity=NOTE,
                    )
                    ctx.applied.add("TM101")
                    return []
                self._fail(
                    ctx,
                    statement,
                    "the output depends on no tensor made with `requires_grad=True` in the same block (its leaves are created in an enclosing block, or are module parameters)",
                    deferrable=True,
                )
                return None
            for name in params:
                if name in block.leaves and block.leaves[name].state == "unknown":
                    self._fail(
                        ctx,
                        statement,
                        f"the gradient state of `{name}` is unknown here",
                    )
                    return None
            region = [out[i] for i in region_idx]
            fname = None
            moved = False
        for other in body:
            if self._retained(other, ctx):
                ctx.report(
                    "TM911",
                    "`retain_grad()`: MindSpore keeps no gradient of intermediate values",
                    tm9.RETAIN_GRAD.use_instead,
                    node=other,
                )
                self._fail(ctx, statement, "an intermediate's `.grad` is retained")
                return None
        for name in params:
            culprit = self._in_place_update(out, name, block, ctx)
            if culprit is not None:
                ctx.report(
                    "TM914",
                    f"in-place update of `{name}`, which is differentiated",
                    tm9.INPLACE_LEAF.use_instead,
                    node=culprit,
                )
                self._fail(
                    ctx, statement, f"`{name}` is updated in place before the gradient"
                )
                return None
        # Later readers of `.grad` the rule cannot follow.
        if site.kind == "backward" and self._foreign_grad_reads(rest, block, ctx):
            self._fail(
                ctx,
                statement,
                "`.grad` of tensors other than this block's leaves is read afterwards (module parameters?)",
            )
            return None
        later = self._later_reads(
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
            block.outer_later,
        )
        emitted: list = []
        if not reused:
            region_binds: set[str] = set()
            region_reads: set[str] = set()
            for s in region:
                region_binds |= binds(s)
                region_reads |= reads(s)
            if region_binds & set(params) and site.kind == "grad":
                self._fail(
                    ctx, statement, "the forward region rebinds a differentiated input"
                )
                return None
            for s in region:
                for call in calls(s):
                    base = in_place_target(call)
                    if isinstance(base, cst.Name) and base.value in params:
                        ctx.report(
                            "TM914",
                            f"in-place update of `{base.value}` inside the differentiated region",
                            tm9.INPLACE_LEAF.use_instead,
                            node=s,
                        )
                        self._fail(
                            ctx,
                            statement,
                            "a leaf is updated in place in the forward region",
                        )
                        return None
            first = min(region_idx) if region_idx else len(out)
            between = [k for k in range(first, len(out)) if k not in region_idx]
            hooks = [out[k] for k in between if self._hook_on(out[k], region_binds)]
            between = [k for k in between if not any(out[k] is h for h in hooks)]
            # Moving a region statement to the gradient call crosses the statements after it.
            moved = True
            for k in between:
                prior = [out[j] for j in region_idx if j < k]
                prior_binds = (
                    set().union(*(binds(p) for p in prior)) if prior else set()
                )
                prior_reads = (
                    set().union(*(reads(p) for p in prior)) if prior else set()
                )
                if not self._independent(out[k], prior_binds, prior_reads):
                    moved = False
                    break
            aux: list[str] = []
            if moved:
                aux = sorted(
                    (region_binds & later)
                    - {o.value for o in site.outputs if isinstance(o, cst.Name)}
                )
                single_name = len(site.outputs) == 1 and isinstance(
                    site.outputs[0], cst.Name
                )
                if site.kind == "grad" and region_binds & later and not single_name:
                    moved = False
            if not moved:
                if hooks:
                    ctx.report(
                        "TM913",
                        "`register_hook` on a tensor outside the differentiated function never fires in MindSpore",
                        tm9.TENSOR_HOOK.use_instead,
                        node=hooks[0],
                    )
                    self._fail(
                        ctx,
                        statement,
                        "a tensor hook would have to move into the function",
                    )
                    return None
                if not all(self._pure(s, ctx) for s in region):
                    self._fail(
                        ctx,
                        statement,
                        "the forward region has side effects and is needed before the gradient call",
                    )
                    return None
                if region_binds & set(params):
                    self._fail(ctx, statement, "the forward region rebinds a leaf")
                    return None
                aux = []
            else:
                for h in hooks:
                    ctx.report(
                        "TM913",
                        "`register_hook` moved into the differentiated function (PyNative `Tensor.register_hook`)",
                        tm9.TENSOR_HOOK.use_instead,
                        node=h,
                        severity=NOTE,
                    )
            inner = []
            for s in (
                sorted(region_idx + [out.index(h) for h in hooks])
                if moved
                else region_idx
            ):
                s = out[s]
                if id(s) in no_grad_statements(ctx):
                    s = s.visit(_StopGradient(ctx))
                inner.append(s if moved else s.deep_clone())
            base = (
                site.outputs[0].value
                if len(site.outputs) == 1 and isinstance(site.outputs[0], cst.Name)
                else "forward"
            )
            fname = self._fresh(f"{base}_fn", ctx)
            returned: list[cst.BaseExpression] = list(site.outputs)
            if aux:
                returned = [site.outputs[0]] + [cst.Name(a) for a in aux]
            ret = returned[0] if len(returned) == 1 else _tuple(returned, parens=False)
            fn_body = inner + [cst.SimpleStatementLine([cst.Return(ret)])]
            fn_body = [
                s.with_changes(leading_lines=())
                if i == 0 and hasattr(s, "leading_lines")
                else s
                for i, s in enumerate(fn_body)
            ]
            fdef = cst.FunctionDef(
                cst.Name(fname),
                cst.Parameters([cst.Param(cst.Name(p)) for p in params]),
                cst.IndentedBlock(fn_body),
                leading_lines=statement.leading_lines,
            )
            if moved:
                drop = set(region_idx) | {out.index(h) for h in hooks}
                out[:] = [s for k, s in enumerate(out) if k not in drop]
            emitted.append(fdef)
            self.defs.add(id(fdef))
            depends = set(params) | region_reads | {fname}
            if (
                len(site.outputs) == 1
                and isinstance(site.outputs[0], cst.Name)
                and not aux
            ):
                block.extracted[site.outputs[0].value] = Extracted(
                    fname, list(params), depends
                )
        else:
            aux = []
        assert fname is not None
        if site.kind == "backward":
            emitted += self._emit_backward(
                site, fname, params, aux, later, moved, block, ctx
            )
        else:
            value_names: list[str] = []
            output = (
                site.outputs[0].value if isinstance(site.outputs[0], cst.Name) else None
            )
            if moved and output is not None and (output in later or aux):
                value_names = [output if output in later else "_", *aux]
            result = self._emit_grad(
                site, fname, params, block, ctx, statement, emitted, value_names, aux
            )
            if result is None:
                return None
            new_statement = statement.visit(_ReplaceNode(site.call, result))
            if not region:
                new_statement = new_statement.with_changes(
                    leading_lines=statement.leading_lines
                )
            elif emitted and isinstance(emitted[0], cst.FunctionDef):
                new_statement = new_statement.with_changes(leading_lines=())
            emitted.append(new_statement)
            self.pure.add(id(new_statement))
            for name in binds(new_statement):
                block.leaves.pop(name, None)
        outputs = {o.value for o in site.outputs if isinstance(o, cst.Name)}
        for s in emitted:
            ctx.copy_position(s, statement)
            if not isinstance(s, cst.FunctionDef):
                self.pure.add(id(s))
                for name in binds(s) - outputs:
                    block.requires.pop(name, None)
        out.extend(emitted)
        if aux:
            for name in aux:
                if name in block.leaves:
                    block.leaves.pop(name)
                    block.nonleaf.add(name)
        if _kw(site.call, "retain_graph") or _kw(site.call, "create_graph"):
            ctx.applied.add("TM108")
        create_graph = _kw(site.call, "create_graph")
        if create_graph is not None and _is_true(create_graph.value):
            closures = self._tensor_closures(emitted, params, out, ctx)
            if closures:
                ctx.report(
                    "TM917",
                    f"the gradient may be differentiated again with respect to `{closures[0]}`, which its function reads as a closure: check that mixed derivative on MindSpore",
                    tm9.MIXED_SECOND_ORDER.use_instead,
                    node=statement,
                    severity=WARNING,
                )
        ctx.applied.add("TM101" if site.kind == "backward" else "TM102")
        return emitted

    # -- analysis -------------------------------------------------------------------------------

    # -- what is left -------------------------------------------------------------------------
    def _report_left(self, body, ctx: ModuleContext) -> None:
        if not self._may_hold_site(ctx):
            return  # no statement can be a site or call one
        rule = self

        class _Left(cst.CSTVisitor):
            def __init__(self) -> None:
                self.statement = None
                self.loop_steps: list[bool] = []

            def visit_SimpleStatementLine(self, node) -> bool:
                self._check(node)
                return False  # holds no loop

            def _check(self, node) -> None:
                if id(node) in claimed(ctx) or any(self.loop_steps):
                    return
                site = rule._site(node, ctx)
                if site is None:
                    unsupported = [
                        c
                        for c in rule.calls_of(node)
                        if ctx.qualname(c.func) in SITE_NAMES
                    ]
                    if unsupported:
                        rule._fail(
                            ctx,
                            node,
                            f"`{ctx.qualname(unsupported[0].func)}` with arguments the rule does not map "
                            "(inputs must be names; for module parameters use "
                            "`mindspore.grad(fn, grad_position=None, weights=model.trainable_params())`)",
                        )
                    return
                if site.kind == "backward" and rule._followed_by_step(node, body):
                    return
                line = ctx.position(node)[0]
                if any(f.rule == "TM910" and f.line == line for f in ctx.findings):
                    return
                rule._fail(
                    ctx,
                    node,
                    "no optimizer step follows it here, and the tensors it differentiates are not "
                    "all visible in this block, or what their `.grad` holds before it cannot be "
                    "proven (a model rebound from a call, grads read through `.grad`)",
                )

            def visit_For(self, node) -> None:
                self.loop_steps.append(rule._loop_has_step(node))

            def leave_For(self, node) -> None:
                self.loop_steps.pop()

            visit_While = visit_For
            leave_While = leave_For

        for statement in body:
            if self._may_site(statement, ctx):
                visit(statement, _Left())

    def _may_site(self, statement, ctx: ModuleContext) -> bool:
        """Whether a call in ``statement`` can be a gradient site (what ``_report_left`` reports
        on: a ``.backward`` method or a torch name of ``SITE_NAMES``)."""
        for call in self.calls_of(statement):
            func = call.func
            if isinstance(func, cst.Attribute) and func.attr.value == "backward":
                return True
            if ctx.qualname(func) in SITE_NAMES:
                return True
        return False

    def _loop_has_step(self, node) -> bool:
        return any(
            isinstance(c.func, cst.Attribute) and c.func.attr.value == "step"
            for c in self.calls_of(node)
        )

    def _followed_by_step(self, node, body) -> bool:
        return any(
            isinstance(c.func, cst.Attribute) and c.func.attr.value == "step"
            for s in body
            for c in self.calls_of(s)
        )


def _reads_flags(body: list, ctx: ModuleContext) -> bool:
    """Whether a statement of ``body`` names `.requires_grad` (from the census's lines)."""
    sites = ctx.census.attributes.get("requires_grad")
    if sites is None or not sites.lines:
        return False
    lines = sorted(sites.lines)
    for statement in body:
        info = ctx.statements.get(id(statement))
        if info is None:
            continue
        i = bisect.bisect_left(lines, info.line)
        if i < len(lines) and lines[i] <= info.end_line:
            return True
    return False
