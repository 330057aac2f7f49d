"""What a helper does after its backward (the events a summary records), and why a helper that runs
backward on a loss it receives cannot be summarised (the reasons TM928 gives)."""

from __future__ import annotations

import libcst as cst

from .events import CLIP_NORM, CLIP_VALUE
from .summaries import (
    DISPATCH_CLIP,
    StepSummary,
    Summaries,
    assigned_call,
    backward_site,
    body_of,
    expr_call,
    names_in,
    single,
    walk_calls,
)


def read_events(
    stmts, summary: StepSummary, ctx, found: Summaries, params
) -> str | None:
    """Read the events after the backward; a reason when one cannot be summarised."""
    scaler = summary.scaler
    for stmt in stmts:
        if isinstance(stmt, cst.If):
            test = ctx.dotted(stmt.test)
            if (
                test is not None
                and summary.flag is None
                and test not in ("True", "False")
            ):
                summary.flag = test
            elif not _plain_test(stmt.test, summary.loss):
                return (
                    "a branch after its backward() tests a value the rule cannot follow"
                )
            blocks = [stmt.body.body]
            if stmt.orelse is not None:
                if not isinstance(stmt.orelse, cst.Else):
                    return "an `elif` after its backward()"
                blocks.append(stmt.orelse.body.body)
            for block in blocks:
                problem = read_events(block, summary, ctx, found, params)
                if problem is not None:
                    return problem
            continue
        small = single(stmt)
        if isinstance(small, (cst.Assert, cst.Pass)):
            continue
        if isinstance(small, cst.Return) and small.value is None:
            continue
        if (
            isinstance(small, cst.Return)
            and isinstance(small.value, cst.Name)
            and small.value.value in summary.result_names
            and stmt is stmts[-1]
        ):
            summary.result = small.value.value
            summary.transforms = True
            continue
        if (
            isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
            and isinstance(small.value, cst.Name)
            and small.value.value == "None"
        ):
            summary.result_names.add(small.targets[0].target.value)
            continue
        assigned = assigned_call(stmt)
        if assigned is not None:
            problem = _result_event(assigned, summary, ctx, params)
            if problem is not None:
                return problem
            continue
        if isinstance(small, cst.Return) and summary.loss in names_in(small):
            return f"it reads the loss `{summary.loss}` after its backward() (in its return value)"
        if isinstance(small, cst.Return):
            return "it returns a value after its backward(), which its callers may use"
        call = expr_call(stmt)
        if call is None:
            return "it runs other statements after its backward()"
        if summary.loss in names_in(call):
            return f"it reads the loss `{summary.loss}` after its backward()"
        func = call.func
        qualified = (
            ctx.qualname(func) or imported_name(ctx, func) or ctx.dotted(func) or ""
        )
        if (
            qualified in CLIP_NORM
            or qualified in CLIP_VALUE
            or qualified in DISPATCH_CLIP
        ):
            summary.transforms = True
            bound = clip_bound(call, qualified)
            if bound is None:
                return "it clips with arguments the rule does not map"
            summary.clip_arg = ctx.dotted(bound)
            continue
        if not isinstance(func, cst.Attribute):
            return (
                f"it calls `{ctx.dotted(func) or cst.Module([]).code_for_node(func)}` after its backward(), whose "
                "effect on the gradients is not known"
            )
        receiver = ctx.dotted(func.value)
        attr = func.attr.value
        if receiver is not None and receiver == scaler:
            if attr == "unscale_" and len(call.args) == 1:
                summary.transforms = True
                if not _set_optimizer(summary, ctx.dotted(call.args[0].value)):
                    return "it steps two optimizers"
                continue
            if attr == "step" and len(call.args) == 1:
                if not _set_optimizer(summary, ctx.dotted(call.args[0].value)):
                    return "it steps two optimizers"
                continue
            if attr == "update" and not call.args:
                continue
            return f"`{receiver}.{attr}(...)` after its backward() has no mapping"
        if attr == "step" and not call.args:
            if not _set_optimizer(summary, receiver):
                return "it steps two optimizers"
            continue
        if attr == "zero_grad":
            summary.transforms = True
            if not _set_optimizer(summary, receiver):
                return "it zeroes another optimizer than it steps"
            continue
        return f"it calls `{ctx.dotted(func) or attr}` after its backward(), whose effect on the gradients is not known"
    return None


def _result_event(assigned, summary: StepSummary, ctx, params) -> str | None:
    """``norm = clip_grad_norm_(parameters, c)`` or ``norm = grad_norm(parameters)`` after the
    backward: a value computed from the gradients, which the helper may return."""
    name, call = assigned
    if summary.loss in names_in(call):
        return f"it reads the loss `{summary.loss}` after its backward()"
    qualified = (
        ctx.qualname(call.func)
        or imported_name(ctx, call.func)
        or ctx.dotted(call.func)
        or ""
    )
    if qualified in CLIP_NORM:
        keywords = {a.keyword.value for a in call.args if a.keyword is not None}
        positional = [a for a in call.args if a.keyword is None]
        if "norm_type" in keywords or len(positional) > 2:
            return "it keeps the norm of a clipping with another norm type"
        bound = clip_bound(call, qualified)
        if bound is None:
            return "it clips with arguments the rule does not map"
        summary.transforms = True
        summary.clip_arg = ctx.dotted(bound)
        summary.result_names.add(name)
        return None
    if is_grad_reader(ctx, call.func) and _reads_parameters(call, params, ctx):
        summary.result_names.add(name)
        return None
    return "it runs other statements after its backward()"


def _reads_parameters(call: cst.Call, params, ctx) -> bool:
    """The function is given one of the helper's parameters (the parameters whose gradients it
    reads) as its first argument, and only literals besides."""
    if not call.args or call.args[0].keyword is not None or call.args[0].star:
        return False
    if ctx.dotted(call.args[0].value) not in params:
        return False
    return all(
        isinstance(a.value, (cst.Integer, cst.Float, cst.Name)) and not a.star
        for a in call.args[1:]
    )


GRAD_READERS = "training.grad_readers"


def is_grad_reader(ctx, func: cst.BaseExpression) -> bool:
    """A function of this tree that reads only the ``.grad`` of the parameters it is given
    (``migrator.tree_grads``): of this module, or imported from another file of the tree."""
    name = ctx.dotted(func)
    if name is None:
        return False
    readers = getattr(ctx, "grad_readers", None)
    module = getattr(ctx, "module", None)
    if readers is None:
        tree = getattr(ctx, "tree", None)
        readers = set(tree.grad_readers) if tree is not None else set()
        module = tree.module if tree is not None else None
        local = ctx.state.get(GRAD_READERS)
        if local is None:
            local = _local_readers(ctx.source) if ".grad" in ctx.source else set()
            ctx.state[GRAD_READERS] = local
        if name in local:
            return True
    if ctx.qualname(func) in readers or imported_name(ctx, func) in readers:
        return True
    return module is not None and f"{module}.{name}" in readers


def _local_readers(source: str) -> set[str]:
    import ast

    from ...migrator.tree_grads import grad_readers

    try:
        return grad_readers(ast.parse(source))
    except SyntaxError:
        return set()


def imported_name(ctx, func) -> str | None:
    """``func`` through the module's imports of other modules, where the context knows them."""
    lookup = getattr(ctx, "imported_name", None)
    found = lookup(func) if lookup is not None else None
    if found is not None:
        return found
    imports = getattr(ctx, "state", {}).get(MODULE_IMPORTS)
    name = ctx.dotted(func)
    if not imports or name is None:
        return None
    head, _, rest = name.partition(".")
    target = imports.get(head)
    if target is None:
        return None
    return f"{target}.{rest}" if rest else target


MODULE_IMPORTS = "training.module_imports"


def module_imports(module: cst.Module, ctx) -> dict[str, str]:
    """Local name -> qualified name for the module's absolute top-level imports (``from timm import
    utils`` -> ``timm.utils``), for a file converted without its tree."""
    names: dict[str, str] = {}
    for stmt in module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.ImportFrom) and not small.relative:
                origin = ctx.dotted(small.module) if small.module else None
                if origin is None or isinstance(small.names, cst.ImportStar):
                    continue
                for alias in small.names:
                    local = ctx.dotted(
                        alias.asname.name if alias.asname else alias.name
                    )
                    names[local] = f"{origin}.{ctx.dotted(alias.name)}"
            elif isinstance(small, cst.Import):
                for alias in small.names:
                    full = ctx.dotted(alias.name)
                    if full is None:
                        continue
                    if alias.asname is not None:
                        names[ctx.dotted(alias.asname.name)] = full
                    else:
                        names[full.split(".")[0]] = full.split(".")[0]
    return names


def _plain_test(test, loss: str) -> bool:
    """``x is not None``, ``not x``: tests without calls that do not read the loss, which the
    rewrite keeps as they are."""
    has_call = (
        any(True for _ in walk_calls(test)) if isinstance(test, cst.CSTNode) else True
    )
    return not has_call and loss not in names_in(test)


def clip_bound(call: cst.Call, qualified: str) -> cst.BaseExpression | None:
    positional = [a.value for a in call.args if a.keyword is None]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    key = (
        "clip_value"
        if qualified in CLIP_VALUE
        else ("value" if qualified in DISPATCH_CLIP else "max_norm")
    )
    if len(positional) > 1:
        return positional[1]
    return keywords.get(key)


def _set_optimizer(summary: StepSummary, name: str | None) -> bool:
    if name is None:
        return False
    if summary.optimizer and summary.optimizer != name:
        return False
    summary.optimizer = name
    return True


def merge_inner(summary: StepSummary, inner: StepSummary, site: dict) -> str | None:
    """A helper whose backward is a call of another helper takes over that helper's summary."""
    bound = site["bound"]

    def outer(name: str | None) -> str | None:
        if name is None:
            return None
        value = bound.get(name)
        return cst.Module([]).code_for_node(value) if value is not None else name

    optimizer = outer(inner.optimizer)
    if summary.optimizer and summary.optimizer != optimizer:
        return "it steps two optimizers"
    summary.optimizer = optimizer or ""
    if inner.create_graph is not None:
        value = outer(inner.create_graph)
        if value not in (None, "False"):
            if value in summary.params:
                summary.create_graph = value
            elif value.isidentifier() and value not in ("True", "None"):
                # read where the call is: the rewritten helper raises there when it is true
                summary.create_graph_free = value
            else:
                return (
                    f"it passes `create_graph={value}` to a loss scaler: a higher-order backward "
                    "through a scaler is not rewritten"
                )
    summary.scaler = inner.scaler
    if inner.scaler == "self" and inner.library:
        summary.scaler = cst.Module([]).code_for_node(site["call"].func)
    elif inner.scaler is not None and inner.scaler.partition(".")[0] == "self":
        # ``self._scaler`` of the helper called: the receiver of that call, as this helper spells it
        call = site["call"]
        receiver = (
            call.func
            if inner.qualname.endswith(".__call__")
            else call.func.value
            if isinstance(call.func, cst.Attribute)
            else None
        )
        if receiver is None:
            return "it calls a helper whose loss scaler the rule cannot name here"
        rest = inner.scaler.partition(".")[2]
        base = cst.Module([]).code_for_node(receiver)
        summary.scaler = f"{base}.{rest}" if rest else base
    elif inner.scaler is not None:
        summary.scaler = outer(inner.scaler.partition(".")[0]) + (
            "." + inner.scaler.partition(".")[2] if "." in inner.scaler else ""
        )
    summary.transforms = summary.transforms or inner.transforms
    inner_flag = outer(inner.flag)
    if inner_flag not in (None, "True"):
        summary.flag = inner_flag
    return None


def branch_reason(
    node: cst.FunctionDef, ctx, found: Summaries, params: set[str]
) -> str:
    """Why a backward (or a loss-scaler call) nested in a branch or a loop cannot be summarised,
    naming the test that chooses it."""
    from .gradstate import child_blocks

    def walk(block, tests: list[str]) -> str | None:
        for stmt in block:
            if isinstance(stmt, cst.SimpleStatementLine) and tests:
                call = expr_call(stmt)
                if call is not None and (
                    backward_site(stmt, ctx, found, params) is not None
                    or isinstance(call.func, cst.Attribute)
                    and call.func.attr.value == "backward"
                ):
                    return tests[-1]
            if isinstance(stmt, cst.If):
                test = cst.Module([]).code_for_node(stmt.test)
                found_in = walk(stmt.body.body, [*tests, f"if {test}:"])
                if found_in is None and stmt.orelse is not None:
                    found_in = walk(
                        child_blocks(stmt)[-1], [*tests, f"the `else` of `if {test}:`"]
                    )
                if found_in is not None:
                    return found_in
            elif isinstance(stmt, (cst.For, cst.While, cst.With, cst.Try)):
                label = {
                    cst.For: "a loop",
                    cst.While: "a loop",
                    cst.With: "a `with` block",
                }.get(type(stmt), "a `try` block")
                for child in child_blocks(stmt):
                    inner = walk(child, [*tests, label])
                    if inner is not None:
                        return inner
        return None

    where = walk(body_of(node), [])
    if where is None:
        return "its backward() runs only on some paths"
    if where.startswith(("if ", "the `else`")):
        shown = f"`{where}`" if where.startswith("if ") else where
        return (
            f"its backward() runs under {shown}, so which backward runs (scaled by a loss scaler "
            "or not, and with which arguments) is known only at run time"
        )
    return f"its backward() runs inside {where}, so how often it runs is known only at run time"


def derived_loss(node: cst.FunctionDef, nested, params: set[str], ctx) -> str | None:
    """A backward on a name the helper derives from a parameter through a call it cannot follow
    (``with amp.scale_loss(loss, optimizer) as scaled_loss: scaled_loss.backward()``)."""
    receivers = {ctx.dotted(c.func.value) for c in nested} - {None}
    if not receivers:
        return None
    found: list[str] = []

    class _Bindings(cst.CSTVisitor):
        def visit_WithItem(self, item) -> None:
            if (
                item.asname is not None
                and ctx.dotted(item.asname.name) in receivers
                and names_in(item.item) & params
            ):
                found.append(
                    f"with {cst.Module([]).code_for_node(item.item)} as "
                    f"{ctx.dotted(item.asname.name)}"
                )

    node.visit(_Bindings())
    if not found:
        return None
    return (
        f"the loss it receives flows into its backward() through `{found[0]}`, a path the rule "
        "cannot follow"
    )
