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
from ...migrator.engine import visit

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
    # a name the helper does not bind, passed as ``create_graph`` (``second_order`` of an enclosing
    # function): the rewritten helper raises where it is true
    create_graph_free: str | None = None
    zeroes_first: bool = False  # ``optimizer.zero_grad()`` before the backward
    transforms: bool = False  # unscales, clips or zeroes G after the backward
    clip_arg: str | None = None  # the parameter holding the clipping bound
    free: frozenset[str] = frozenset()  # free names the summary relies on
    library: bool = False
    # a backward chosen at run time: ``if T: <arm> else: <arm>``, each arm summarised on its own
    choice: tuple[cst.BaseExpression, tuple[StepSummary, StepSummary]] | None = None
    # the tree-wide name of a helper other files call, or of a library step class: its call sites
    # and its definition (or construction) are converted together or not at all
    key: str | None = None
    foreign: bool = False  # defined in another file of the tree (rewritten there)
    # the name it returns, bound after its backward to a gradient norm (``clip_grad_norm_``'s
    # value, or a function that reads only the ``.grad`` of the parameters), or to None
    result: str | None = None
    result_names: set[str] = field(default_factory=set)


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
    # names whose step is known only at run time (a parameter callers pass different things)
    uncertain: dict[str, str] = field(default_factory=dict)
    # classes defined in other files of the tree, by the name they are known under here
    foreign_classes: set[str] = field(default_factory=set)

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


def body_of(node: cst.FunctionDef) -> list[cst.BaseStatement]:
    return list(node.body.body) if isinstance(node.body, cst.IndentedBlock) else []


def single(stmt: cst.CSTNode) -> cst.BaseSmallStatement | None:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        return stmt.body[0]
    return None


def expr_call(stmt: cst.CSTNode) -> cst.Call | None:
    small = single(stmt)
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        return small.value
    return None


def assigned_call(stmt: cst.CSTNode) -> tuple[str, cst.Call] | None:
    """``name = f(...)``: the name and the call."""
    small = single(stmt)
    if (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
        and isinstance(small.value, cst.Call)
    ):
        return small.targets[0].target.value, small.value
    return None


def walk_calls(node: cst.CSTNode) -> Iterator[cst.Call]:
    found: list[cst.Call] = []

    class _Calls(cst.CSTVisitor):
        def visit_FunctionDef(self, inner) -> bool:
            return inner is node

        def visit_Call(self, call) -> None:
            found.append(call)

    visit(node, _Calls())
    return iter(found)


def names_in(node: cst.CSTNode) -> set[str]:
    found: set[str] = set()

    class _Names(cst.CSTVisitor):
        def visit_Name(self, name) -> None:
            found.add(name.value)

    visit(node, _Names())
    return found


def definitions(
    module: cst.Module,
) -> Iterator[tuple[str, cst.FunctionDef, str | None]]:
    """Every function in the module as (qualname, def, enclosing class name)."""

    def walk(body, prefix: str, cls: str | None):
        for stmt in body:
            if isinstance(stmt, cst.FunctionDef):
                name = prefix + stmt.name.value
                yield name, stmt, cls
                yield from walk(body_of(stmt), name + ".", None)
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
    from .summary_events import MODULE_IMPORTS, module_imports

    ctx.state[MODULE_IMPORTS] = module_imports(module, ctx)
    found = Summaries()
    found.library_instances = library_instances(module, ctx)
    found.library_classes = library_classes(module, ctx)
    found.library_names = set(imported_names(module, ctx))
    found.unmapped = dict(ctx.state.get("training.unmapped_steps", {}))
    found.accelerators = accelerators(module, ctx)
    defs = list(definitions(module))
    if ctx.tree is not None:
        from .tree_steps import add_foreign

        add_foreign(found, ctx)
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
            result = summarize_one(qualname, node, cls, found, ctx)
            if result is None:
                left.append((qualname, node, cls))
        if len(left) == len(pending):
            break
        pending = left
    # Then the functions without a backward of their own that hand a parameter to a summarised
    # helper (a `_backward(_loss)` closure calling a loss scaler).
    done = {id(n) for n in _summarised_nodes(found)} | set(found.failed_nodes)
    for qualname, node, cls in defs:
        if id(node) in done or _has_backward(node):
            continue
        if any(resolve_call(c, ctx, found) is not None for c in walk_calls(node)):
            summarize_one(qualname, node, cls, found, ctx)
    return found


def _summarised_nodes(found: Summaries) -> list:
    return [s.node for s in (*found.functions.values(), *found.callables.values())]


def _has_backward(node: cst.FunctionDef) -> bool:
    return any(
        isinstance(c.func, cst.Attribute) and c.func.attr.value == "backward"
        for c in walk_calls(node)
    )


def _collect_instances(node, defs, found: Summaries, ctx: ModuleContext) -> None:
    classes = {q.rsplit(".", 1)[0] for q, _, c in defs if c and q.endswith(".__call__")}
    classes |= found.foreign_classes
    if not classes:
        return  # nothing could be recorded: no walk

    class _Assigns(cst.CSTVisitor):
        def visit_Assign(self, assign) -> None:
            value = assign.value
            if isinstance(value, cst.Call) and ctx.dotted(value.func) in classes:
                for target in assign.targets:
                    name = ctx.dotted(target.target)
                    if name is not None:
                        found.instances[name] = ctx.dotted(value.func)

    node.visit(_Assigns())


def summarize_one(
    qualname, node: cst.FunctionDef, cls, found: Summaries, ctx
) -> str | None:
    """Record the summary (or the failure) of one definition; None when it depends on a helper not
    summarised yet."""
    method = cls is not None
    params, defaults = _params(node, method)
    body = body_of(node)
    sites = []
    for i, stmt in enumerate(body):
        site = backward_site(stmt, ctx, found, set(params))
        if site is not None:
            sites.append((i, site))
    nested = [
        c
        for c in walk_calls(node)
        if isinstance(c.func, cst.Attribute) and c.func.attr.value == "backward"
    ]
    counted = sum(1 for _, s in sites if s.get("direct"))
    if not sites:
        from .choice import summarize_choice
        from .summary_events import branch_reason, derived_loss

        chosen = summarize_choice(qualname, node, cls, found, ctx)
        if isinstance(chosen, StepSummary):
            _record(found, qualname, node, method, chosen)
            return "ok"
        if chosen is not None and any(
            _loss_param_backward(c, params, ctx) for c in nested
        ):
            return _fail(found, qualname, node, chosen)
        if any(_loss_param_backward(c, params, ctx) for c in nested) or _nested_site(
            node, ctx, found, set(params)
        ):
            return _fail(
                found,
                qualname,
                node,
                branch_reason(node, ctx, found, set(params)),
            )
        derived = derived_loss(node, nested, set(params), ctx)
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
    summary.create_graph_free = site.get("create_graph_free")
    inner: StepSummary | None = site.get("callee")
    for stmt in body[:index]:
        if is_zero(stmt, ctx):
            summary.zeroes_first = True
            continue
        if loss in names_in(stmt):
            return _fail(
                found,
                qualname,
                node,
                f"it changes the loss `{loss}` before its backward()",
            )
    from .summary_events import merge_inner, read_events

    problem = read_events(body[index + 1 :], summary, ctx, found, params)
    if inner is not None and problem is None:
        problem = merge_inner(summary, inner, site)
    if problem is not None:
        return _fail(found, qualname, node, problem)
    if not summary.optimizer:
        return _fail(found, qualname, node, "no optimizer step follows its backward()")
    _record(found, qualname, node, method, summary)
    return "ok"


def _record(found: Summaries, qualname: str, node, method: bool, summary) -> None:
    if method and node.name.value == "__call__":
        found.callables[qualname.rsplit(".", 1)[0]] = summary
    else:
        found.functions[qualname] = summary


def _nested_site(
    node: cst.FunctionDef, ctx, found: Summaries, params: set[str]
) -> bool:
    """A call of a summarised helper (a loss scaler) given one of ``params`` as its loss, inside a
    branch or a loop of the function."""
    lines: list[cst.SimpleStatementLine] = []

    class _Lines(cst.CSTVisitor):
        def visit_FunctionDef(self, inner) -> bool:
            return inner is node

        def visit_SimpleStatementLine(self, line) -> None:
            lines.append(line)

    for stmt in body_of(node):
        if not isinstance(stmt, cst.SimpleStatementLine):
            stmt.visit(_Lines())
    return any(backward_site(line, ctx, found, params) is not None for line in lines)


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
                if isinstance(arg.value, cst.Name) and value not in (
                    "True",
                    "None",
                ):
                    # a name the helper reads from outside: checked where the backward was
                    site["create_graph_free"] = value
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
    if name is None or name in found.uncertain:
        return None
    qualified = ctx.qualname(call.func)
    if qualified is not None and qualified.startswith("torch."):
        return None  # torch's own API (`torch.amp.GradScaler(...)`), never a helper
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


def is_zero(stmt, ctx) -> bool:
    call = expr_call(stmt)
    return (
        call is not None
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value == "zero_grad"
    )


def forward_callables(facts) -> set[str]:
    found = getattr(facts, "step_summaries", None)
    return set(found.forward_callables) if found is not None else set()


def collect_forward_callables(
    module: cst.Module,
    models: set[str],
    found: Summaries,
    losses: set[str] = frozenset(),
) -> None:
    """Functions that compute with a model and run no backward: calling one is a forward pass.

    A closure (a function defined inside another) that returns a value also counts when it calls
    a callable it reads from the enclosing function (timm's ``_forward()`` returns
    ``task(input, target)['loss']``): the value a caller differentiates is then computed there,
    by that call, and not kept from an earlier forward pass. Loss functions, library and built-in
    callables do not count."""
    for qualname, node, cls in definitions(module):
        if cls is not None or _has_backward(node):
            continue
        for call in walk_calls(node):
            name = ModuleContext.dotted(call.func)
            root = name.split(".")[0] if name else None
            if name in models or root in models:
                found.forward_callables.add(node.name.value)
                break
        else:
            if (
                "." in qualname
                and _returns_value(node)
                and _calls_enclosing(node, losses)
            ):
                found.forward_callables.add(node.name.value)


def _returns_value(node: cst.FunctionDef) -> bool:
    returns: list[cst.Return] = []

    class _Returns(cst.CSTVisitor):
        def visit_FunctionDef(self, inner) -> bool:
            return inner is node

        def visit_Return(self, ret) -> None:
            returns.append(ret)

    node.visit(_Returns())
    return bool(returns) and all(r.value is not None for r in returns)


def _calls_enclosing(node: cst.FunctionDef, losses) -> bool:
    """Whether the closure calls, by a plain name, a callable bound outside it that is no loss
    function, no builtin and no torch/MindSpore name."""
    import builtins

    from ..common.dataflow import usage

    local = set(_params(node, False)[0])
    for stmt in body_of(node):
        local |= usage(stmt).writes
    for call in walk_calls(node):
        if not isinstance(call.func, cst.Name):
            continue
        name = call.func.value
        if (
            name in local
            or name in losses
            or hasattr(builtins, name)
            or "loss" in name.lower()
            or "criterion" in name.lower()
        ):
            continue
        return True
    return False


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
