"""TM201: the zero_grad/backward/step training step becomes ``forward_fn`` + ``value_and_grad`` +
``optimizer(grads)``; TM202-TM206 are the parts of it (accumulation, clipping, loss scaling, several
optimizers, manual updates) reported under their own ids."""

from __future__ import annotations

import ast
import bisect
import re

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.findings import ERROR, NOTE, WARNING
from ...migrator.rule import GRADIENT, Rule, RuleMeta, register
from ..common.ast_nodes import nodes
from ..common.tree import module_tree
from . import examples, findings, helper_examples, step_calls
from .analysis import Plan, analyze, scope_body, step_closures
from .callee import rewrite_callee
from .cell import apply
from .facts import collect
from .gradstate import leaves
from .rewrite import AUTOCAST, cuda_autocast

CLAIMED = "training.claimed"
_FAMILY_IDS = {
    "clip_norm": "TM203",
    "clip_value": "TM203",
    "unscale": "TM204",
    "scaler_step": "TM204",
    "scaler_update": "TM204",
    "manual": "TM206",
}


def _loss_hint() -> str:
    return findings.IDIOM


@register
class TrainingStepRule(Rule):
    meta = RuleMeta(
        id="TM201",
        title="zero_grad/backward/step becomes value_and_grad and optimizer(grads)",
        what="Rewrites a training step, wherever it stands (a loop over a loader, a `train()` function, "
        "an `if` around the update): the statements whose values flow into the loss become "
        "`forward_fn`, `grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, "
        "has_aux=...)` is built once before the loop, `loss.backward()` becomes the call "
        "`(loss, aux), grads = grad_fn(...)`, `optimizer.step()` becomes `optimizer(grads)`, and a "
        "`zero_grad()` that only clears what the next backward overwrites disappears.",
        why="PyTorch adds gradients into `.grad` state during `backward()`; MindSpore differentiates a "
        "function and returns the gradients as values (seed: 训练网络与梯度求导). `has_aux=True` keeps "
        "the extra outputs out of the differentiation: without it MindSpore sums the gradients of all "
        "outputs (seed: 梯度求导, has_aux).",
        use_instead=findings.IDIOM,
        examples=examples.TM201,
        severity=WARNING,
        family="training",
    )
    extra = (
        RuleMeta(
            "TM202",
            "Gradient accumulation keeps G across iterations",
            examples.ACCUMULATION_WHAT,
            examples.ACCUMULATION_WHY,
            examples.ACCUMULATION_USE,
            examples.TM202,
            WARNING,
            "training",
        ),
        RuleMeta(
            "TM203",
            "Gradient clipping on the gradient values",
            examples.CLIP_WHAT,
            examples.CLIP_WHY,
            examples.CLIP_USE,
            examples.TM203,
            WARNING,
            "training",
        ),
        RuleMeta(
            "TM204",
            "GradScaler becomes a MindSpore loss scaler",
            examples.SCALER_WHAT,
            examples.SCALER_WHY,
            examples.SCALER_USE,
            examples.TM204,
            WARNING,
            "training",
        ),
        RuleMeta(
            "TM205",
            "One gradient value per optimizer",
            examples.SEVERAL_WHAT,
            examples.SEVERAL_WHY,
            examples.SEVERAL_USE,
            examples.TM205,
            WARNING,
            "training",
        ),
        RuleMeta(
            "TM206",
            "Manual updates through p.grad",
            examples.MANUAL_WHAT,
            examples.MANUAL_WHY,
            examples.MANUAL_USE,
            examples.TM206,
            WARNING,
            "training",
        ),
        RuleMeta(
            "TM210",
            "A helper that runs the training step takes gradients",
            helper_examples.WHAT,
            helper_examples.WHY,
            helper_examples.USE,
            helper_examples.EXAMPLES,
            WARNING,
            "training",
        ),
        RuleMeta(
            "TM208",
            "--style cell: TrainOneStepCell for a plain training loop",
            examples.CELL_WHAT,
            examples.CELL_WHY,
            examples.CELL_USE,
            examples.TM208,
            WARNING,
            "training",
        ),
    )
    stage = GRADIENT
    order = 50
    triggers = ("backward", "GradScaler", *step_calls.LIBRARY_HINTS)
    methods = frozenset({"backward", "zero_grad", "get_scale"})
    torch_only_methods = frozenset({"backward", "zero_grad"})

    def __init__(self) -> None:
        self.facts = None
        self.closures: set[str] = set()
        self.plans: dict[int, Plan] = {}
        # lines of the GradScalers a reported step still uses
        self.kept_scalers: set[int] = set()
        self.kept_names: set[str] = set()
        self.helpers: dict = {}  # id(def) -> summary of a helper rewritten to take gradients

    # -- analysis on the original tree: claims and findings ---------------------------------------
    def visit_Module(self, node: cst.Module, ctx: ModuleContext) -> None:
        claimed = ctx.state.setdefault(CLAIMED, set())
        # A scope without a `.backward(...)` call has no training step to analyse; the facts are
        # still needed for `scaler.get_scale()`.
        backward = _backward_lines(ctx)
        library = step_calls.has_library_hint(ctx.source) or bool(
            ctx.tree is not None and ctx.tree.steps
        )
        if not backward and not library and "get_scale" not in ctx.source:
            return
        tree = module_tree(ctx)
        self.facts = collect(tree, ctx.aliases)
        if not backward and not library:
            return
        found = step_calls.prepare(node, ctx, self.facts)
        summarised = step_calls.active(found)
        self.closures = step_closures(tree)
        for scope in _scopes(node):
            if not summarised and not _holds_line(scope, backward, ctx):
                continue
            if summarised and step_calls.is_helper(scope, found):
                continue
            try:
                plan = analyze(scope, ctx, self.facts, self.closures)
            except Exception as error:  # noqa: BLE001 - an analysis defect must not lose the file: report, leave the code
                _report_internal(scope, ctx, error)
                continue
            if plan is None:
                continue
            for event in plan.handled:
                _claim(claimed, event.stmt)
                if id(event.stmt) in plan.origin:
                    _claim(claimed, plan.origin[id(event.stmt)])
            if plan.problems or not plan.regions:
                _report_problems(plan, ctx)
                self.kept_scalers.update(
                    self.facts.scalers[n].lineno
                    for n in plan.kept_scalers
                    if n in self.facts.scalers
                )
                self.kept_names.update(plan.kept_scalers)
                continue
            self.plans[id(scope)] = plan
            _report_notes(plan, ctx)
        if summarised or library:
            self.helpers, kept = step_calls.settle_helpers(
                node, ctx, self.facts, self.plans, lambda stmt: _claim(claimed, stmt)
            )
            self.kept_names.update(kept)
            self.kept_scalers.update(
                step_calls.assignment_lines(module_tree(ctx), kept)
            )

    # -- rewrite on the updated tree --------------------------------------------------------------
    def leave_FunctionDef(self, original, updated, ctx: ModuleContext):
        _propagate_claims(original, updated, ctx)
        helper = self.helpers.get(id(original))
        if helper is not None:
            ctx.applied.update(step_calls.applied_ids(helper))
            return rewrite_callee(
                updated, helper, ctx, self.facts.step_summaries, report=True
            )
        return self._rewrite(original, updated, ctx)

    def leave_Module(self, original, updated, ctx: ModuleContext):
        _propagate_claims(original, updated, ctx)
        updated = self._rewrite(original, updated, ctx)
        if self.facts is not None and self.facts.step_summaries is not None:
            updated = step_calls.convert_library_scalers(updated, ctx)
            updated = step_calls.drop_rewritten_imports(updated, ctx)
        return updated

    def _leave_compound(self, original, updated, ctx: ModuleContext):
        _propagate_claims(original, updated, ctx)
        return updated

    leave_For = leave_While = leave_If = leave_Else = leave_With = leave_Try = (
        leave_IndentedBlock
    ) = _leave_compound

    def _rewrite(self, original, updated, ctx: ModuleContext):
        before = self.plans.get(id(original))
        if before is None:
            return updated
        _align(scope_body(original), scope_body(updated), ctx)
        try:
            plan = analyze(updated, ctx, self.facts, self.closures)
            body = (
                apply(plan, ctx)
                if plan is not None
                and plan.ok
                and len(plan.regions) == len(before.regions)
                else None
            )
        except Exception as error:  # noqa: BLE001 - as above
            _report_internal(original, ctx, error)
            return updated
        if body is None and plan is not None and not plan.ok and plan.problems:
            # What another conversion of this output would report: the step as it now reads.
            _report_problems(plan, ctx)
            return updated
        if body is None:
            for region in before.regions:
                ctx.report(
                    "TM926",
                    "the training step changed under other rules and was left unconverted",
                    findings.IDIOM,
                    node=region.backwards[-1].stmt,
                )
            return updated
        ctx.applied.add("TM201")
        kinds = {e.kind for e in plan.events.values()}
        ctx.applied.update(_FAMILY_IDS[k] for k in kinds if k in _FAMILY_IDS)
        for event in plan.events.values():
            if event.kind in ("call_step", "call_read"):
                ctx.applied.update(step_calls.applied_ids(event.detail["summary"]))
        if plan.accumulating:
            ctx.applied.add("TM202")
        if len(plan.psets) > 1:
            ctx.applied.add("TM205")
        if isinstance(updated, cst.Module):
            return updated.with_changes(body=body)
        return updated.with_changes(body=updated.body.with_changes(body=body))

    # -- GradScaler construction ------------------------------------------------------------------
    def leave_Call(self, original, updated, ctx: ModuleContext):
        func = updated.func
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value == "get_scale"
            and not updated.args
            and self.facts is not None
        ):
            receiver = ctx.dotted(func.value)
            if _known_scaler(receiver, self.facts.scalers) and not _known_scaler(
                receiver, self.kept_names
            ):
                ctx.applied.add("TM204")
                return cst.Call(
                    func=cst.Name("float"),
                    args=[
                        cst.Arg(
                            cst.Attribute(
                                value=func.value, attr=cst.Name("scale_value")
                            )
                        )
                    ],
                )
        qualified = ctx.qualname(original.func)
        if qualified not in (
            "torch.cuda.amp.GradScaler",
            "torch.amp.GradScaler",
            "torch.cpu.amp.GradScaler",
            "torch.amp.grad_scaler.GradScaler",
        ):
            return updated
        from .scaler import scaler_call

        if self.kept_scalers and ctx.stack:
            info = ctx.statements.get(id(ctx.stack[-1]))
            if info is not None and any(
                info.line <= line <= info.end_line for line in self.kept_scalers
            ):
                ctx.report(
                    "TM204",
                    "kept as torch's GradScaler: the training step that uses it is left unconverted",
                    examples.SCALER_USE,
                    severity=ERROR,
                )
                return updated
        new, problem = scaler_call(updated, ctx)
        if new is None:
            ctx.report("TM204", problem, examples.SCALER_USE, severity=ERROR)
            return updated
        ctx.applied.add("TM204")
        return new

    def visit_With(self, node: cst.With, ctx: ModuleContext) -> None:
        items = [
            i.item
            for i in node.items
            if ctx.qualname(i.item.func if isinstance(i.item, cst.Call) else i.item)
            in AUTOCAST
        ]
        if len(items) != 1:
            return
        item = items[0]
        if ctx.options.target == "cpu" and cuda_autocast(item, ctx):
            ctx.report(
                "TM925",
                "CUDA autocast is disabled in torch without CUDA; with --target cpu the forward runs in float32",
                findings.AUTOCAST.use_instead,
                node=node,
                severity=WARNING,
            )
        else:
            ctx.report(
                "TM925",
                "autocast region left as it is: MindSpore sets mixed precision per network",
                findings.AUTOCAST.use_instead,
                node=node,
                severity=ERROR,
            )


def _known_scaler(receiver: str | None, scalers) -> bool:
    """A name bound to a GradScaler, or ``obj.attr`` where a class of the module sets ``self.attr`` to one."""
    if receiver is None:
        return False
    if receiver in scalers:
        return True
    head, _, attr = receiver.rpartition(".")
    return bool(head) and "." not in attr and f"self.{attr}" in scalers


# `.backward` as Python can spell it: spaces, continuation lines and comments may stand around the dot.
_BACKWARD = re.compile(r"\.(?:[ \t\f\r\n\\]|#[^\r\n]*)*backward\b")


def _backward_lines(ctx: ModuleContext) -> list[int]:
    """Sorted lines of the `x.backward(...)` calls of the module."""
    if not _BACKWARD.search(ctx.source):
        return []
    return sorted(
        node.lineno
        for node in nodes(ctx, ast.Call)
        if isinstance(node.func, ast.Attribute) and node.func.attr == "backward"
    )


def _holds_line(scope, lines: list[int], ctx: ModuleContext) -> bool:
    """Whether a function scope spans one of ``lines`` (the module always does)."""
    if isinstance(scope, cst.Module):
        return True
    info = ctx.statements.get(id(scope))
    if info is None:
        return True
    i = bisect.bisect_left(lines, info.line)
    return i < len(lines) and lines[i] <= info.end_line


def _report_internal(scope, ctx: ModuleContext, error: Exception) -> None:
    for stmt in leaves(scope_body(scope)):
        if isinstance(stmt, cst.SimpleStatementLine) and "backward" in cst.Module(
            []
        ).code_for_node(stmt):
            ctx.report(
                "TM926",
                f"the training-step analysis failed ({error.__class__.__name__}); left unconverted",
                findings.IDIOM,
                node=stmt,
                severity=ERROR,
            )


def _scopes(module: cst.Module):
    yield module
    stack = list(module.body)
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, cst.FunctionDef):
            yield stmt
            stack.extend(scope_body(stmt))
        elif isinstance(stmt, cst.ClassDef):
            if isinstance(stmt.body, cst.IndentedBlock):
                stack.extend(stmt.body.body)
        else:
            stack.extend(
                s
                for s in leaves([stmt])
                if isinstance(s, (cst.FunctionDef, cst.ClassDef)) and s is not stmt
            )


def _claim(claimed: set, stmt: cst.CSTNode) -> None:
    claimed.add(id(stmt))
    if isinstance(stmt, cst.SimpleStatementLine):
        for small in stmt.body:
            claimed.add(id(small))
            if isinstance(small, cst.Expr):
                claimed.add(id(small.value))


def _report_problems(plan: Plan, ctx: ModuleContext) -> None:
    for problem in plan.problems:
        meta_hint = {
            "TM920": findings.HIDDEN_FORWARD,
            "TM921": findings.CLOSURE_STEP,
            "TM922": findings.HOOKS,
            "TM923": findings.DUPLICATED_FORWARD,
            "TM924": findings.JOINT,
            "TM926": findings.UNSUPPORTED_SHAPE,
            "TM927": findings.GRAD_READ,
        }.get(problem.rule, findings.UNSUPPORTED_SHAPE)
        ctx.report(
            problem.rule,
            problem.message + "; the training step is left unconverted",
            meta_hint.use_instead,
            node=problem.stmt,
            severity=ERROR,
        )
    reported = {id(p.stmt) for p in plan.problems}
    for event in plan.handled:
        if event.kind == "backward" and id(event.stmt) not in reported:
            ctx.report(
                "TM926",
                "left unconverted with the rest of its training step",
                findings.IDIOM,
                node=event.stmt,
                severity=ERROR,
            )


def _report_notes(plan: Plan, ctx: ModuleContext) -> None:
    for note in plan.notes:
        ctx.report(
            note.rule, note.message, findings.IDIOM, node=note.stmt, severity=NOTE
        )
    for caution in plan.cautions:
        ctx.report(
            caution.rule,
            caution.message,
            examples.SCALER_USE,
            node=caution.stmt,
            severity=WARNING,
        )
    if plan.init_unknown:
        first = next(r for r in plan.regions if r.pset in plan.live.init_read)
        ctx.report(
            "TM202",
            "gradients accumulated after the last optimizer step of a call start from zero at the next call (torch keeps them in `.grad`)",
            examples.ACCUMULATION_USE,
            node=first.backwards[-1].stmt,
            severity=WARNING,
        )


def _propagate_claims(original, updated, ctx: ModuleContext) -> None:
    """Claims were made on the original statements; other rules see the rebuilt ones."""
    claimed = ctx.state.get(CLAIMED)
    if not claimed:
        return
    from .gradstate import child_blocks

    if isinstance(original, cst.Module):
        pairs = [(original.body, updated.body)]
    elif isinstance(original, (cst.FunctionDef,)):
        pairs = [(scope_body(original), scope_body(updated))]
    elif isinstance(original, cst.IndentedBlock):
        pairs = [(original.body, updated.body)]
    elif isinstance(original, cst.Else):
        pairs = (
            [(original.body.body, updated.body.body)]
            if isinstance(original.body, cst.IndentedBlock)
            else []
        )
    else:
        pairs = list(zip(child_blocks(original), child_blocks(updated)))
    for old_block, new_block in pairs:
        if len(old_block) != len(new_block):
            continue
        for old, new in zip(old_block, new_block):
            if id(old) in claimed and new is not old:
                _claim(claimed, new)


def _align(original, updated, ctx: ModuleContext) -> None:
    """Give the statements other rules rebuilt the positions of the ones they came from."""
    if len(original) != len(updated):
        return
    from .gradstate import child_blocks

    for old, new in zip(original, updated):
        if new is not old:
            ctx.copy_position(new, old)
        if type(old) is type(new) and not isinstance(
            old, (cst.SimpleStatementLine, cst.FunctionDef, cst.ClassDef)
        ):
            for a, b in zip(child_blocks(old), child_blocks(new)):
                _align(a, b, ctx)
