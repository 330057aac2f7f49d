"""Function summaries: the helpers, closures, methods and ``__call__``s that run a training step on a
loss they receive.

A summary says which parameter receives the loss, which scaler (if any) scales it, which optimizer
the helper steps, and whether it changes G after its backward (unscaling, clipping, zeroing), so a
call site can be rewritten in gradient-state terms: the caller differentiates the loss's forward
region, and the helper takes the gradients in place of the loss (DESIGN, "The gradient-state
model"). A helper that runs backward on a value it receives but cannot be summarised keeps the
reason, which its call sites and its own backward report.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import libcst as cst

from ...migrator.context import ModuleContext
from .events import CLIP_NORM, CLIP_VALUE

DISPATCH_CLIP = frozenset(
    {"timm.utils.dispatch_clip_grad", "timm.utils.clip_grad.dispatch_clip_grad"}
)


@dataclass
class StepSummary:
    """What a helper does to the gradient state of the optimizer it receives."""

    qualname: (
        str  # for messages: ``ScaledStep.__call__``, ``train_one_epoch._backward``
    )
    node: cst.FunctionDef | None  # the definition (None for a library callable)
    params: tuple[str, ...]  # parameters as a call binds them (``self`` left out)
    defaults: dict[str, cst.BaseExpression]
    loss: str  # the parameter that receives the loss
    optimizer: str  # the parameter (or free name) that holds the optimizer
    scaler: str | None = (
        None  # ``self._scaler``, ``self`` or a free name scaling the loss
    )
    flag: str | None = None  # the parameter (or free name) gating the update
    create_graph: str | None = None  # the parameter passed as ``create_graph``
    zeroes_first: bool = False  # ``optimizer.zero_grad()`` before the backward
    transforms: bool = False  # unscales, clips or zeroes G after the backward
    clip_arg: str | None = None  # the parameter holding the clipping bound
    free: frozenset[str] = frozenset()  # free names the summary relies on
    library: bool = False


@dataclass
class Summaries:
    """The summaries of a module, and the helpers that run backward but could not be summarised."""

    functions: dict[str, StepSummary] = field(
        default_factory=dict
    )  # ``f`` / ``Class.method``
    callables: dict[str, StepSummary] = field(
        default_factory=dict
    )  # class name -> ``__call__``
    instances: dict[str, str] = field(default_factory=dict)  # bound name -> class
    failures: dict[str, str] = field(default_factory=dict)  # qualname -> reason
    failed_nodes: dict[int, str] = field(default_factory=dict)  # id(def) -> reason
    library_instances: dict[str, StepSummary] = field(default_factory=dict)
    # functions of the module without a backward whose body calls a model (``_forward()``)
    forward_callables: set[str] = field(default_factory=set)
    # summaries of the library step classes the module imports
    library_classes: list = field(default_factory=list)
    library_names: set[str] = field(
        default_factory=set
    )  # the names they are imported as
    accelerators: dict[str, str | None] = field(
        default_factory=dict
    )  # name -> why not plain
    unmapped: dict[str, str] = field(default_factory=dict)  # instance -> why unmapped
    # classes whose ``__call__`` runs backward (summarised or not)
    step_classes: set[str] = field(default_factory=set)

    def of_node(self, node: cst.CSTNode) -> StepSummary | None:
        for summary in (*self.functions.values(), *self.callables.values()):
            if summary.node is node:
                return summary
        return None


def _params(node: cst.FunctionDef, method: bool) -> tuple[tuple[str, ...], dict]:
    params = node.params
    plain = [*params.posonly_params, *params.params]
    if method and plain:
        plain = plain[1:]
    names = [p.name.value for p in (*plain, *params.kwonly_params)]
    defaults = {
        p.name.value: p.default
        for p in (*plain, *params.kwonly_params)
        if p.default is not None
    }
    return tuple(names), defaults


def _body(node: cst.FunctionDef) -> list[cst.BaseStatement]:
    return list(node.body.body) if isinstance(node.body, cst.IndentedBlock) else []


def _small(stmt: cst.CSTNode) -> cst.BaseSmallStatement | None:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        return stmt.body[0]
    return None


def expr_call(stmt: cst.CSTNode) -> cst.Call | None:
    small = _small(stmt)
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        return small.value
    return None


def _walk_calls(node: cst.CSTNode) -> Iterator[cst.Call]:
    found: list[cst.Call] = []

    class _Calls(cst.CSTVisitor):
        def visit_FunctionDef(self, inner) -> bool:
            return inner is node

        def visit_Call(self, call) -> None:
            found.append(call)

    node.visit(_Calls())
    return iter(found)


def _names_in(node: cst.CSTNode) -> set[str]:
    found: set[str] = set()

    class _Names(cst.CSTVisitor):
        def visit_Name(self, name) -> None:
            found.add(name.value)

    node.visit(_Names())
    return found


def _definitions(
    module: cst.Module,
) -> Iterator[tuple[str, cst.FunctionDef, str | None]]:
    """Every function in the module as (qualname, def, enclosing class name)."""

    def walk(body, prefix: str, cls: str | None):
        for stmt in body:
            if isinstance(stmt, cst.FunctionDef):
                name = prefix + stmt.name.value
                yield name, stmt, cls
                yield from walk(_body(stmt), name + ".", None)
            elif isinstance(stmt, cst.ClassDef) and isinstance(
                stmt.body, cst.IndentedBlock
            ):
                yield from walk(
                    stmt.body.body, prefix + stmt.name.value + ".", stmt.name.value
                )
            elif isinstance(stmt, (cst.If, cst.Try, cst.With, cst.For, cst.While)):
                from .gradstate import child_blocks

                for block in child_blocks(stmt):
                    yield from walk(block, prefix, cls)

    yield from walk(module.body, "", None)


def summarize(module: cst.Module, ctx: ModuleContext) -> Summaries:
    """The summaries of every helper of the module, callees before callers."""
    from .library_steps import (
        accelerators,
        imported_names,
        library_classes,
        library_instances,
    )

    found = Summaries()
    found.library_instances = library_instances(module, ctx)
    found.library_classes = library_classes(module, ctx)
    found.library_names = set(imported_names(module, ctx))
    found.unmapped = dict(ctx.state.get("training.unmapped_steps", {}))
    found.accelerators = accelerators(module, ctx)
    defs = list(_definitions(module))
    for _, node, cls in defs:
        _collect_instances(node, defs, found, ctx)
    _collect_instances(module, defs, found, ctx)
    pending = [(q, n, c) for q, n, c in defs if _has_backward(n)]
    found.step_classes = {
        q.rsplit(".", 1)[0] for q, n, c in pending if c and q.endswith(".__call__")
    }
    # Helpers that call other helpers are summarised after them.
    for _ in range(4):
        left = []
        for qualname, node, cls in pending:
            result = _summarize_one(qualname, node, cls, found, ctx)
            if result is None:
                left.append((qualname, node, cls))
        if len(left) == len(pending):
            break
        pending = left
    return found


def _has_backward(node: cst.FunctionDef) -> bool:
    return any(
        isinstance(c.func, cst.Attribute) and c.func.attr.value == "backward"
        for c in _walk_calls(node)
    )


def _collect_instances(node, defs, found: Summaries, ctx: ModuleContext) -> None:
    classes = {q.rsplit(".", 1)[0] for q, _, c in defs if c and q.endswith(".__call__")}

    class _Assigns(cst.CSTVisitor):
        def visit_Assign(self, assign) -> None:
            value = assign.value
            if isinstance(value, cst.Call) and ctx.dotted(value.func) in classes:
                for target in assign.targets:
                    name = ctx.dotted(target.target)
                    if name is not None:
                        found.instances[name] = ctx.dotted(value.func)

    node.visit(_Assigns())


def _summarize_one(
    qualname, node: cst.FunctionDef, cls, found: Summaries, ctx
) -> str | None:
    """Record the summary (or the failure) of one definition; None when it depends on a helper not
    summarised yet."""
    method = cls is not None
    params, defaults = _params(node, method)
    body = _body(node)
    sites = []
    for i, stmt in enumerate(body):
        site = backward_site(stmt, ctx, found, set(params))
        if site is not None:
            sites.append((i, site))
    nested = [
        c
        for c in _walk_calls(node)
        if isinstance(c.func, cst.Attribute) and c.func.attr.value == "backward"
    ]
    counted = sum(1 for _, s in sites if s.get("direct"))
    if not sites:
        if any(_loss_param_backward(c, params, ctx) for c in nested):
            return _fail(
                found,
                qualname,
                node,
                _branch_reason(node, ctx, found, set(params)),
            )
        derived = _derived_loss(node, nested, set(params), ctx)
        if derived is not None:
            return _fail(found, qualname, node, derived)
        return "none"
    if len(sites) > 1 or len(nested) > counted:
        return _fail(
            found,
            qualname,
            node,
            "it runs backward() more than once, or on some paths only",
        )
    index, site = sites[0]
    if site.get("problem"):
        return _fail(found, qualname, node, site["problem"])
    loss = site["loss"]
    summary = StepSummary(qualname, node, params, defaults, loss, optimizer="")
    summary.scaler = site.get("scaler")
    summary.create_graph = site.get("create_graph")
    inner: StepSummary | None = site.get("callee")
    for stmt in body[:index]:
        if _is_zero(stmt, ctx):
            summary.zeroes_first = True
            continue
        if loss in _names_in(stmt):
            return _fail(
                found,
                qualname,
                node,
                f"it changes the loss `{loss}` before its backward()",
            )
    problem = _after(body[index + 1 :], summary, ctx, found, params)
    if inner is not None and problem is None:
        problem = _merge_inner(summary, inner, site)
    if problem is not None:
        return _fail(found, qualname, node, problem)
    if not summary.optimizer:
        return _fail(found, qualname, node, "no optimizer step follows its backward()")
    if method and node.name.value == "__call__":
        found.callables[qualname.rsplit(".", 1)[0]] = summary
    else:
        found.functions[qualname] = summary
    return "ok"


def _fail(found: Summaries, qualname: str, node, reason: str) -> str:
    found.failures[qualname] = reason
    found.failed_nodes[id(node)] = reason
    return "failed"


def _loss_param_backward(call: cst.Call, params, ctx) -> bool:
    receiver = call.func.value
    if isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Attribute):
        receiver = receiver.args[0].value if receiver.args else receiver
    return ctx.dotted(receiver) in params


def backward_site(
    stmt, ctx: ModuleContext, found: Summaries, params: set[str]
) -> dict | None:
    """``P.backward(...)``, ``S.scale(P).backward(...)`` or a call of a summarised helper with ``P``
    as its loss, where ``P`` is one of ``params``."""
    call = expr_call(stmt)
    if call is None or not isinstance(call.func, (cst.Attribute, cst.Name)):
        return None
    if isinstance(call.func, cst.Attribute) and call.func.attr.value == "backward":
        receiver = call.func.value
        site: dict = {"direct": True}
        if (
            isinstance(receiver, cst.Call)
            and isinstance(receiver.func, cst.Attribute)
            and receiver.func.attr.value == "scale"
            and len(receiver.args) == 1
        ):
            site["scaler"] = ctx.dotted(receiver.func.value)
            receiver = receiver.args[0].value
            if site["scaler"] is None:
                return None
        name = ctx.dotted(receiver)
        if name not in params:
            return None
        site["loss"] = name
        for arg in call.args:
            keyword = arg.keyword.value if arg.keyword else None
            if keyword == "retain_graph":
                continue
            if keyword == "create_graph":
                value = ctx.dotted(arg.value)
                if value in params:
                    site["create_graph"] = value
                    continue
                if value == "False":
                    continue
                site["problem"] = (
                    "its backward() builds a higher-order graph (`create_graph`), which the "
                    "gradient values of `value_and_grad` do not carry"
                )
                continue
            site["problem"] = "its backward() takes arguments the rule does not map"
        return site
    callee = resolve_call(call, ctx, found)
    if callee is None:
        return None
    bound = bind(callee, call)
    if bound is None:
        return None
    loss = (
        ctx.dotted(bound.get(callee.loss))
        if bound.get(callee.loss) is not None
        else None
    )
    if loss not in params:
        return None
    return {
        "loss": loss,
        "callee": callee,
        "bound": bound,
        "call": call,
        "direct": False,
    }


def resolve_call(
    call: cst.Call, ctx: ModuleContext, found: Summaries
) -> StepSummary | None:
    """The summary of the helper a call runs: ``f(...)``, ``self.m(...)``, ``obj(...)`` where ``obj``
    is an instance of a class with a summarised ``__call__``, or a library step callable."""
    name = ctx.dotted(call.func)
    if name is None:
        return None
    if name in found.library_instances:
        return found.library_instances[name]
    if (
        len(found.library_classes) == 1
        and not found.step_classes
        and "scaler" in name.rsplit(".", 1)[-1].lower()
        and name not in found.library_names
    ):
        # a loss scaler received as a parameter, in a module that imports one library scaler
        return found.library_classes[0]
    if name in found.instances and found.instances[name] in found.callables:
        return found.callables[found.instances[name]]
    if name in found.functions:
        return found.functions[name]
    assumed = assumed_class(name, found)
    if assumed is not None:
        return found.callables.get(assumed)
    tail = name.rsplit(".", 1)[-1]
    if name.startswith("self.") and name.count(".") == 1:
        matches = [
            s for q, s in found.functions.items() if q.endswith("." + tail) and "." in q
        ]
        if len(matches) == 1:
            return matches[0]
    nested = [
        s
        for q, s in found.functions.items()
        if q.rsplit(".", 1)[-1] == name and "." in q
    ]
    if len(nested) == 1 and "." not in name:
        return nested[0]
    return None


def bind(summary: StepSummary, call: cst.Call) -> dict[str, cst.BaseExpression] | None:
    """The argument expression of each parameter at a call (defaults filled in), or None when the
    call passes ``*args``/``**kwargs`` or more arguments than the helper takes."""
    bound: dict[str, cst.BaseExpression] = {}
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in call.args) or len(positional) > len(summary.params):
        return None
    for name, arg in zip(summary.params, positional):
        bound[name] = arg.value
    for arg in call.args:
        if arg.keyword is not None:
            if arg.keyword.value not in summary.params:
                return None
            bound[arg.keyword.value] = arg.value
    for name, default in summary.defaults.items():
        bound.setdefault(name, default)
    return bound


def _is_zero(stmt, ctx) -> bool:
    call = expr_call(stmt)
    return (
        call is not None
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value == "zero_grad"
    )


def _after(stmts, summary: StepSummary, ctx, found: Summaries, params) -> str | None:
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
                problem = _after(block, summary, ctx, found, params)
                if problem is not None:
                    return problem
            continue
        small = _small(stmt)
        if isinstance(small, (cst.Assert, cst.Pass)):
            continue
        if isinstance(small, cst.Return) and small.value is None:
            continue
        if isinstance(small, cst.Return) and summary.loss in _names_in(small):
            return f"it reads the loss `{summary.loss}` after its backward() (in its return value)"
        if isinstance(small, cst.Return):
            return "it returns a value after its backward(), which its callers may use"
        call = expr_call(stmt)
        if call is None:
            return "it runs other statements after its backward()"
        if summary.loss in _names_in(call):
            return f"it reads the loss `{summary.loss}` after its backward()"
        func = call.func
        qualified = ctx.qualname(func) or ctx.dotted(func) or ""
        if (
            qualified in CLIP_NORM
            or qualified in CLIP_VALUE
            or qualified in DISPATCH_CLIP
        ):
            summary.transforms = True
            bound = _clip_bound(call, qualified)
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


def _plain_test(test, loss: str) -> bool:
    """``x is not None``, ``not x``: tests without calls that do not read the loss, which the
    rewrite keeps as they are."""
    has_call = (
        any(True for _ in _walk_calls(test)) if isinstance(test, cst.CSTNode) else True
    )
    return not has_call and loss not in _names_in(test)


def _clip_bound(call: cst.Call, qualified: str) -> cst.BaseExpression | None:
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


def _merge_inner(summary: StepSummary, inner: StepSummary, site: dict) -> str | None:
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
            else:
                return (
                    f"it passes `create_graph={value}` to a loss scaler: a higher-order backward "
                    "through a scaler is not rewritten"
                )
    summary.scaler = inner.scaler
    if inner.scaler == "self" and inner.library:
        summary.scaler = cst.Module([]).code_for_node(site["call"].func)
    summary.transforms = summary.transforms or inner.transforms
    inner_flag = outer(inner.flag)
    if inner_flag not in (None, "True"):
        summary.flag = inner_flag
    return None


def forward_callables(facts) -> set[str]:
    found = getattr(facts, "step_summaries", None)
    return set(found.forward_callables) if found is not None else set()


def collect_forward_callables(
    module: cst.Module, models: set[str], found: Summaries
) -> None:
    """Functions that compute with a model and run no backward: calling one is a forward pass."""
    for qualname, node, cls in _definitions(module):
        if cls is not None or _has_backward(node):
            continue
        for call in _walk_calls(node):
            name = ModuleContext.dotted(call.func)
            root = name.split(".")[0] if name else None
            if name in models or root in models:
                found.forward_callables.add(node.name.value)
                break


def assumed_class(name: str, found: Summaries) -> str | None:
    """The module's one loss-scaler class, for a call of a name it does not bind to an instance
    (``loss_scaler`` received as a parameter, as in DeiT's ``train_one_epoch``): the name must say
    it is a scaler, as it does for GradScalers."""
    if (
        name in found.instances
        or name in found.functions
        or name in found.step_classes
        or len(found.step_classes) != 1
    ):
        return None
    if "scaler" not in name.rsplit(".", 1)[-1].lower():
        return None
    return next(iter(found.step_classes))


def _branch_reason(
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

    where = walk(_body(node), [])
    if where is None:
        return "its backward() runs only on some paths"
    if where.startswith(("if ", "the `else`")):
        shown = f"`{where}`" if where.startswith("if ") else where
        return (
            f"its backward() runs under {shown}, so which backward runs (scaled by a loss scaler "
            "or not, and with which arguments) is known only at run time"
        )
    return f"its backward() runs inside {where}, so how often it runs is known only at run time"


def _derived_loss(node: cst.FunctionDef, nested, params: set[str], ctx) -> str | None:
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
                and _names_in(item.item) & params
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
