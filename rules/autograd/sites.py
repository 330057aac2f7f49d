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
- later reads of ``x.grad`` become the gradient variables; repeated backwards add up.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.findings import NOTE, WARNING
from ...migrator.rule import GRADIENT, Example, Rule, RuleMeta, define, register
from . import findings as tm9
from .names import PURE_BUILTINS, binds, calls, is_simple_assignment, reads
from .names import attribute_reads as _attributes
from .state import LEAVES, claimed, leaf_names_of, no_grad_statements, original_of

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

BACKWARD = RuleMeta(
    id="TM101",
    title="`backward()` becomes `mindspore.grad` / `value_and_grad` of the forward function",
    what="Rewrites `z.backward()` and `torch.autograd.backward(z)` on a value computed from leaf tensors "
    "(`requires_grad=True`, `Variable(..., requires_grad=True)`, `requires_grad_()`): the statements "
    "from the leaves to `z` become a function of the leaves, called through `mindspore.grad(fn, "
    "grad_position=...)`, or `mindspore.value_and_grad` when `z` or the intermediates are used "
    "afterwards. Later reads of `x.grad` become the returned gradients; a read before any backward "
    "becomes `None`; a second backward adds to the first, as `.grad` accumulates. A `gradient` argument "
    "(vector-Jacobian product) becomes `mindspore.vjp(fn, *leaves)` and a call of its pullback.",
    why="The seed (梯度求导) explains that PyTorch records a graph during the forward pass and `backward` "
    "fills `.grad` state, while MindSpore records nothing and builds the backward graph from a function "
    "with `grad`: `out = mindspore.grad(net, grad_position=0)(x, y)`. `grad_position` picks the inputs: "
    "0 gives the first input's gradient, (0, 1) a tuple of both. `mindspore.vjp` is MindSpore's "
    "functional form of `backward(gradient)`: it returns the output and a pullback that takes the "
    "sensitivity; `ops.GradOperation(sens_param=True)` computes the same but the seed marks it as not "
    "recommended in current versions.",
    use_instead="`grad_fn = mindspore.value_and_grad(fn, grad_position=(0, 1)); z, (dx, dy) = grad_fn(x, y)`.",
    examples=(
        Example(
            before="import torch\n\n"
            "def grads(x, y):\n"
            "    x.requires_grad_()\n"
            "    y.requires_grad_()\n"
            "    z = x**2 + y\n"
            '    print("x.grad before backward", x.grad)\n'
            "    z.backward()\n"
            "    return z, x.grad, y.grad\n",
            after="import mindspore\n\n"
            "def grads(x, y):\n"
            '    print("x.grad before backward", None)\n'
            "    def z_fn(x, y):\n"
            "        z = x**2 + y\n"
            "        return z\n"
            "    z, (x_grad, y_grad) = mindspore.value_and_grad(z_fn, grad_position=(0, 1))(x, y)\n"
            "    return z, x_grad, y_grad\n",
        ),
        Example(
            before="import torch\n\n"
            "def vjp(a, v):\n"
            "    a.requires_grad_()\n"
            "    b = a * 2\n"
            "    c = b - 1\n"
            "    c.backward(v)\n"
            "    return a.grad\n",
            after="import mindspore\n\n"
            "def vjp(a, v):\n"
            "    def c_fn(a):\n"
            "        b = a * 2\n"
            "        c = b - 1\n"
            "        return c\n"
            "    _, c_vjp = mindspore.vjp(c_fn, a)\n"
            "    (a_grad,) = c_vjp(v)\n"
            "    return a_grad\n",
        ),
        Example(
            before="import torch\n\n"
            "def f(x, model):\n"
            "    x.requires_grad_()\n"
            "    for _ in range(2):\n"
            "        x = model(x)\n"
            "    x.sum().backward()\n",
            after="import torch\n\n"
            "def f(x, model):\n"
            "    # torch2ms: TM900 `.requires_grad_()` is not converted: no certain MindSpore mapping; it still runs on torch\n"
            "    x.requires_grad_()\n"
            "    for _ in range(2):\n"
            "        x = model(x)\n"
            "    # torch2ms: TM910 gradient computation not converted: the output is computed by a compound statement (loop, branch or with)\n"
            "    x.sum().backward()\n",
            findings=("TM910",),
        ),
    ),
    family="autograd",
)
AUTOGRAD_GRAD = define(
    "TM102",
    "`torch.autograd.grad` becomes `mindspore.grad`",
    "Rewrites `torch.autograd.grad(outputs, inputs, ...)` into `mindspore.grad(fn, grad_position=...)` "
    "of the function that computes `outputs` from `inputs`. The result keeps torch's tuple shape: one "
    "input gives `(g,)`, several give a tuple. Several outputs are returned together, and MindSpore "
    "sums their gradients (seed: `has_aux=False`). `create_graph=True` needs nothing: a gradient used "
    "in a later `autograd.grad` is recomputed inside the next function, which nests `mindspore.grad` "
    "(higher order). With `allow_unused=True` an input the output does not depend on gives `None`. "
    "`grad_outputs` becomes a `mindspore.vjp` pullback.",
    "The seed: `torch.autograd.grad` returns the gradients instead of filling `.grad`, and migrates "
    "like `backward`; `mindspore.grad` returns them as values too.",
    "`out = (mindspore.grad(net, grad_position=0)(x, y),)`; nest `mindspore.grad(mindspore.grad(f))` "
    "for second derivatives.",
    examples=(
        Example(
            before="import torch as T\n\n"
            "def second_derivative(x):\n"
            "    x.requires_grad_()\n"
            "    y = x ** 3\n"
            "    (dy,) = T.autograd.grad(y, x, create_graph=True)\n"
            "    (d2y,) = T.autograd.grad(dy, x)\n"
            "    return dy, d2y\n",
            after="import mindspore\n\n"
            "def second_derivative(x):\n"
            "    def y_fn(x):\n"
            "        y = x ** 3\n"
            "        return y\n"
            "    def dy_fn(x):\n"
            "        (dy,) = (mindspore.grad(y_fn, grad_position=0)(x),)\n"
            "        return dy\n"
            "    dy, dy_grad = mindspore.value_and_grad(dy_fn, grad_position=0)(x)\n"
            "    (d2y,) = (dy_grad,)\n"
            "    return dy, d2y\n",
        ),
        Example(
            before="from torch import autograd\n\n"
            "def partials(x, y, u):\n"
            "    z = x * y\n"
            "    return autograd.grad(z, [x, y, u], allow_unused=True)\n",
            after="import mindspore\n\n"
            "def partials(x, y, u):\n"
            "    def z_fn(x, y):\n"
            "        z = x * y\n"
            "        return z\n"
            "    grads = mindspore.grad(z_fn, grad_position=(0, 1))(x, y)\n"
            "    return (grads[0], grads[1], None)\n",
        ),
    ),
    family="autograd",
)
RETAIN_GRAPH = define(
    "TM108",
    "`retain_graph=` and `create_graph=` are dropped",
    "Drops `retain_graph=True` and `create_graph=True` from the gradient calls TM101/TM102 rewrite. "
    "Two backwards through one forward reuse the extracted function and give the sum of their "
    "gradients, as `.grad` accumulation does.",
    "The seed (retain_graph): PyTorch frees the recorded graph after `backward`, so a second backward "
    "needs `retain_graph=True`; MindSpore keeps the backward graph that `grad` built, and calling the "
    "gradient function again computes the gradients again. Higher-order gradients come from nesting "
    "`mindspore.grad`, which needs no flag.",
    "Call the gradient function again: `mindspore.grad(fn, grad_position=0)(x)`.",
    examples=(
        Example(
            before="import torch\n\n"
            "def twice(w, a):\n"
            "    w.requires_grad_()\n"
            "    loss = w * a\n"
            "    loss.backward(retain_graph=True)\n"
            "    loss.backward()\n"
            "    return w.grad\n",
            after="import mindspore\n\n"
            "def twice(w, a):\n"
            "    def loss_fn(w):\n"
            "        loss = w * a\n"
            "        return loss\n"
            "    w_grad = mindspore.grad(loss_fn, grad_position=0)(w)\n"
            "    w_grad_new = mindspore.grad(loss_fn, grad_position=0)(w)\n"
            "    w_grad = w_grad + w_grad_new\n"
            "    return w_grad\n",
        ),
    ),
    family="autograd",
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


def _is_backward_method(func: cst.BaseExpression, ctx: ModuleContext) -> bool:
    """``<tensor>.backward``: not a torch name, not ``self.backward``/``super().backward``."""
    if not (
        isinstance(func, cst.Attribute) and func.attr.value == "backward"
    ) or ctx.is_torch_name(func):
        return False
    base = func.value
    if isinstance(base, cst.Name) and base.value in ("self", "cls"):
        return False
    return not (
        isinstance(base, cst.Call)
        and isinstance(base.func, cst.Name)
        and base.func.value == "super"
    )


def _self_assignment(statement: cst.CSTNode) -> bool:
    """``x = x``, which is what ``x = x.requires_grad_()`` becomes."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    small = statement.body[0]
    return (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
        and small.targets[0].target.deep_equals(small.value)
    )


def _kw(call: cst.Call, name: str) -> cst.Arg | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def _is_true(node: cst.BaseExpression | None) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


def _elements(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(node, (cst.List, cst.Tuple)):
        return [e.value for e in node.elements]
    return [node]


class _ReplaceGrad(cst.CSTTransformer):
    """``x.grad`` → a gradient variable, ``None`` or zeros; ``x.requires_grad``/``x.is_leaf`` → a literal."""

    def __init__(self, table: dict[tuple[str, str], cst.BaseExpression]) -> None:
        super().__init__()
        self.table = table
        self.changed = False

    def leave_Attribute(
        self, original: cst.Attribute, updated: cst.Attribute
    ) -> cst.BaseExpression:
        if isinstance(original.value, cst.Name):
            replacement = self.table.get((original.attr.value, original.value.value))
            if replacement is not None:
                self.changed = True
                return replacement.deep_clone()
        return updated

    def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
        return False

    def visit_AugAssign(self, node: cst.AugAssign) -> bool:
        node.value.visit(self)
        return False

    def leave_AugAssign(self, original, updated):
        return updated.with_changes(value=original.value.visit(self))

    def visit_Del(self, node: cst.Del) -> bool:
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False


class _ReplaceNode(cst.CSTTransformer):
    def __init__(self, target: cst.CSTNode, replacement: cst.BaseExpression) -> None:
        super().__init__()
        self.target = target
        self.replacement = replacement

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        return self.replacement if original is self.target else updated


class _StopGradient(cst.CSTTransformer):
    """Wrap the assigned value of a statement run under ``no_grad`` in ``ops.stop_gradient``."""

    def __init__(self, ctx: ModuleContext) -> None:
        super().__init__()
        self.ctx = ctx

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.Assign:
        return updated.with_changes(
            value=_call(self.ctx, "mindspore.ops.stop_gradient", [updated.value])
        )


def _call(
    ctx: ModuleContext,
    func: str | cst.BaseExpression,
    args: list,
    kwargs: dict | None = None,
) -> cst.Call:
    head = ctx.name(func) if isinstance(func, str) else func
    arguments = [cst.Arg(a) for a in args]
    for key, value in (kwargs or {}).items():
        arguments.append(
            cst.Arg(
                value,
                keyword=cst.Name(key),
                equal=cst.AssignEqual(
                    cst.SimpleWhitespace(""), cst.SimpleWhitespace("")
                ),
            )
        )
    return cst.Call(head, arguments)


def _tuple(items: list[cst.BaseExpression], parens: bool = True) -> cst.Tuple:
    return cst.Tuple(
        [cst.Element(item) for item in items],
        lpar=[cst.LeftParen()] if parens else [],
        rpar=[cst.RightParen()] if parens else [],
    )


def _target(names: list[str], parens: bool = True) -> cst.BaseExpression:
    if len(names) == 1:
        return cst.Name(names[0])
    return _tuple([cst.Name(n) for n in names], parens)


def _assign(
    target: cst.BaseExpression, value: cst.BaseExpression
) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target)], value)])


@register
class GradientSitesRule(Rule):
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
    methods = frozenset({"backward", "retain_grad", "register_hook"})
    torch_only_methods = frozenset({"backward", "retain_grad"})

    def __init__(self) -> None:
        # Statements this rule emitted (gradient calls: no side effects) and functions it extracted.
        self.pure: set[int] = set()
        self.defs: set[int] = set()
        self.taken: set[str] = set()
        self.deferring = False
        self.rank = 0
        self.sites_in_module: bool | None = None

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
        self._report_left(updated.body, ctx)
        return updated

    def leave_FunctionDef(self, original, updated: cst.FunctionDef, ctx: ModuleContext):
        return updated

    def _enabled(self, ctx: ModuleContext) -> bool:
        """Whether the module has gradient sites or leaves at all (most files have neither)."""
        if self.sites_in_module is None:
            names = {use.name for use in ctx.census.uses}
            self.sites_in_module = bool(names & SITE_NAMES)
        return self.sites_in_module or bool(ctx.state.get(LEAVES))

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
                if tensors is None or isinstance(tensors, (cst.List, cst.Tuple)):
                    return None
                grads = (
                    positional[1].value
                    if len(positional) > 1
                    else (
                        _kw(call, "grad_tensors").value
                        if _kw(call, "grad_tensors")
                        else None
                    )
                )
                if any(
                    a.keyword is not None
                    and a.keyword.value not in SITE_KWARGS_BACKWARD
                    for a in call.args
                ):
                    return None
                return Site("backward", call, [tensors], sens=grads)
        for call in calls(statement):
            if ctx.qualname(call.func) == "torch.autograd.grad":
                return self._grad_site(call)
        return None

    def _grad_site(self, call: cst.Call) -> Site | None:
        if any(a.star for a in call.args):
            return None
        positional = [a.value for a in call.args if a.keyword is None]
        named = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
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
        relevant = (
            block is not None
            or any(self._site(s, ctx) for s in body)
            or any(leaf_names_of(ctx, s) for s in body)
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

    @staticmethod
    def _carried(statements: list) -> set[str]:
        """Names the body reads before (re)binding them: values carried from the last iteration."""
        bound: set[str] = set()
        carried: set[str] = set()
        for statement in statements:
            carried |= reads(statement) - bound
            bound |= binds(statement)
        return carried & bound

    def _claimed(
        self, statement, ctx: ModuleContext, body: list, rest: list, loop: bool
    ) -> bool:
        if id(statement) in claimed(ctx):
            return True
        # A backward followed by an optimizer step is the training loop's (TM2xx).
        scope = body if loop else rest
        for other in scope:
            for call in calls(other):
                if (
                    isinstance(call.func, cst.Attribute)
                    and call.func.attr.value == "step"
                ):
                    return True
        return False

    @staticmethod
    def _invalidate(block: Block, bound: set[str]) -> None:
        for output in list(block.extracted):
            if bound & block.extracted[output].depends:
                del block.extracted[output]

    def _requires_flag(
        self, statement, block: Block, ctx: ModuleContext
    ) -> bool | None:
        small = statement.body[0]
        value = small.value
        if id(statement) in no_grad_statements(ctx):
            return False
        if (
            isinstance(value, cst.Call)
            and ctx.dotted(value.func) == "mindspore.ops.stop_gradient"
        ):
            return False
        names = reads(value)
        if isinstance(small, cst.AugAssign):
            names |= reads(small.target)
        if any(block.requires.get(n) for n in names):
            return True
        unknown = [
            n
            for n in names
            if n not in block.requires
            and n not in ctx.aliases
            and n not in PURE_BUILTINS
            and n not in ("None", "True", "False")
        ]
        return None if unknown else False

    def _track(self, statement, block: Block, ctx: ModuleContext) -> None:
        bound = binds(statement)
        if is_simple_assignment(statement) and id(statement) not in self.pure:
            flag = self._requires_flag(statement, block, ctx)
            for name in bound:
                if flag is None:
                    block.requires.pop(name, None)
                else:
                    block.requires[name] = flag
        else:
            for name in bound:
                block.requires.pop(name, None)
        in_place = isinstance(statement, cst.SimpleStatementLine) and all(
            isinstance(x, cst.AugAssign) for x in statement.body
        )
        for name in () if in_place else bound:
            if name in block.leaves:
                block.leaves.pop(name)
                if is_simple_assignment(statement):
                    block.nonleaf.add(name)
            elif name in block.nonleaf and not is_simple_assignment(statement):
                block.nonleaf.discard(name)
        self._invalidate(block, bound)
        # A gradient site left inside a nested block makes the leaves' state unknown.
        if not isinstance(statement, cst.SimpleStatementLine) and self._has_site(
            statement, ctx
        ):
            block.poisoned = True
            for leaf in block.leaves.values():
                leaf.state = "unknown"

    def _has_site(self, node, ctx: ModuleContext) -> bool:
        for call in calls(node):
            if (
                isinstance(call.func, cst.Attribute)
                and call.func.attr.value == "backward"
            ):
                return True
            if ctx.qualname(call.func) in (
                "torch.autograd.backward",
                "torch.autograd.grad",
            ):
                return True
        return False

    def _grad_reads(self, statement, block: Block, ctx: ModuleContext):
        """Rewrite ``x.grad`` of tracked tensors; handle ``x.grad = None`` and ``x.grad.zero_()``."""
        if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
            small = statement.body[0]
            # x.grad = None
            if isinstance(small, cst.Assign) and len(small.targets) == 1:
                target = small.targets[0].target
                if (
                    isinstance(target, cst.Attribute)
                    and target.attr.value == "grad"
                    and isinstance(target.value, cst.Name)
                    and target.value.value in block.leaves
                    and isinstance(small.value, cst.Name)
                    and small.value.value == "None"
                    and block.leaves[target.value.value].state != "unknown"
                ):
                    block.leaves[target.value.value].state = "none"
                    return None, True
            # x.grad.zero_() / x.grad.data.zero_()
            if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
                func = small.value.func
                if (
                    isinstance(func, cst.Attribute)
                    and func.attr.value == "zero_"
                    and not small.value.args
                ):
                    base = func.value
                    if isinstance(base, cst.Attribute) and base.attr.value == "data":
                        base = base.value
                    if (
                        isinstance(base, cst.Attribute)
                        and base.attr.value == "grad"
                        and isinstance(base.value, cst.Name)
                    ):
                        leaf = block.leaves.get(base.value.value)
                        if leaf is not None and leaf.state != "unknown":
                            leaf.state = "zero" if leaf.state != "none" else "none"
                            return None, True
        table: dict[tuple[str, str], cst.BaseExpression] = {}
        for name, leaf in block.leaves.items():
            if leaf.state == "none":
                table["grad", name] = cst.Name("None")
            elif leaf.state == "var":
                table["grad", name] = cst.Name(leaf.var)
            elif leaf.state == "zero":
                table["grad", name] = _call(
                    ctx, "mindspore.ops.zeros_like", [cst.Name(name)]
                )
        for name in block.nonleaf:
            table.setdefault(("grad", name), cst.Name("None"))
        retained = self._retained(statement)
        for name, flag in block.requires.items():
            leaf = name in block.leaves
            table["requires_grad", name] = cst.Name(str(flag))
            table["is_leaf", name] = cst.Name(str(leaf or not flag))
            if not leaf:
                table.setdefault(("grad", name), cst.Name("None"))
            if not flag:
                table["grad_fn", name] = cst.Name("None")
        if block.poisoned or (
            self._has_site(statement, ctx)
            and not isinstance(statement, cst.SimpleStatementLine)
        ):
            table = {key: value for key, value in table.items() if key[0] != "grad"}
        block.retained |= retained
        table = {
            key: value
            for key, value in table.items()
            if not (key[0] == "grad" and key[1] in block.retained)
        }
        new, changed = statement, False
        if table:
            replacer = _ReplaceGrad(table)
            new = statement.visit(replacer)
            if replacer.changed:
                ctx.copy_position(new, statement)
                changed = True
            else:
                new = statement
        self._report_flags(new, ctx, statement)
        return new, changed

    @staticmethod
    def _retained(statement) -> set[str]:
        names = set()
        for call in calls(statement):
            func = call.func
            if (
                isinstance(func, cst.Attribute)
                and func.attr.value == "retain_grad"
                and isinstance(func.value, cst.Name)
            ):
                names.add(func.value.value)
        return names

    def _report_flags(self, statement, ctx: ModuleContext, where) -> None:
        """TM912 for tape attributes left in the code: always `grad_fn`/`is_leaf`, and
        `requires_grad` where it decides control flow."""

        class _Flags(cst.CSTVisitor):
            def __init__(self) -> None:
                self.found: list[str] = []

            def visit_Attribute(self, node: cst.Attribute) -> None:
                if node.attr.value in ("grad_fn", "is_leaf"):
                    self.found.append(node.attr.value)

        tests: list[cst.CSTNode] = []
        if isinstance(statement, (cst.If, cst.While)):
            tests.append(statement.test)
        elif isinstance(statement, cst.SimpleStatementLine):
            tests.extend(
                small.test for small in statement.body if isinstance(small, cst.Assert)
            )
        flags = _Flags()
        header = statement if isinstance(statement, cst.SimpleStatementLine) else None
        if header is not None:
            header.visit(flags)
        for test in tests:
            flags.found.extend(
                "requires_grad" for _ in _attributes(test, "requires_grad")
            )
            test.visit(flags)
        if flags.found:
            ctx.report(
                "TM912",
                f"`.{flags.found[0]}` has no MindSpore form: tensors carry no tape",
                tm9.GRAD_FLAGS.use_instead,
                node=where,
            )

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
            if self._retained(other):
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
                    func = call.func
                    if (
                        isinstance(func, cst.Attribute)
                        and func.attr.value.endswith("_")
                        and not func.attr.value.endswith("__")
                    ):
                        base = func.value
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

    def _emit_backward(
        self, site, fname, params, aux, later, moved, block, ctx
    ) -> list:
        statements: list = []
        output = site.outputs[0]
        out_name = output.value if isinstance(output, cst.Name) else None
        new_names, accumulate = [], []
        for p in params:
            leaf = block.leaves[p]
            if leaf.state == "var":
                fresh = self._fresh(f"{leaf.var}_new", ctx)
                new_names.append(fresh)
                accumulate.append((leaf.var, fresh))
            else:
                var = leaf.var or self._fresh(f"{p}_grad", ctx)
                leaf.var, leaf.state = var, "var"
                new_names.append(var)
        call_args = [cst.Name(p) for p in params]
        position = (
            cst.Integer("0")
            if len(params) == 1
            else _tuple([cst.Integer(str(i)) for i in range(len(params))])
        )
        value_names = (
            ([out_name or "_"] + aux)
            if aux
            else ([out_name] if out_name and moved and out_name in later else [])
        )
        if site.sens is not None:
            vjp_name = self._fresh(f"{out_name or 'forward'}_vjp", ctx)
            kwargs = {"has_aux": cst.Name("True")} if aux else {}
            head = [
                cst.Name(value_names[0] if value_names else "_"),
                cst.Name(vjp_name),
            ]
            if aux:
                head.append(_target(aux))
            statements.append(
                _assign(
                    _tuple(head, parens=False),
                    _call(ctx, "mindspore.vjp", [cst.Name(fname), *call_args], kwargs),
                )
            )
            statements.append(
                _assign(
                    _tuple([cst.Name(n) for n in new_names]),
                    cst.Call(cst.Name(vjp_name), [cst.Arg(site.sens)]),
                )
            )
        elif value_names:
            kwargs = {"grad_position": position}
            if aux:
                kwargs["has_aux"] = cst.Name("True")
            grad_call = cst.Call(
                _call(ctx, "mindspore.value_and_grad", [cst.Name(fname)], kwargs),
                [cst.Arg(a) for a in call_args],
            )
            target = _tuple([_target(value_names), _target(new_names)], parens=False)
            statements.append(_assign(target, grad_call))
        else:
            grad_call = cst.Call(
                _call(
                    ctx,
                    "mindspore.grad",
                    [cst.Name(fname)],
                    {"grad_position": position},
                ),
                [cst.Arg(a) for a in call_args],
            )
            statements.append(_assign(_target(new_names, parens=False), grad_call))
        if accumulate:
            targets = [cst.Name(a) for a, _ in accumulate]
            sums = [
                cst.BinaryOperation(cst.Name(a), cst.Add(), cst.Name(b))
                for a, b in accumulate
            ]
            statements.append(
                _assign(
                    targets[0] if len(targets) == 1 else _tuple(targets, parens=False),
                    sums[0] if len(sums) == 1 else _tuple(sums, parens=False),
                )
            )
        return statements

    def _emit_grad(
        self,
        site,
        fname,
        params,
        block,
        ctx,
        statement,
        emitted,
        value_names=(),
        aux=(),
    ) -> cst.BaseExpression | None:
        """The expression that replaces ``torch.autograd.grad(...)``: torch's tuple, one entry per
        input. When the output or intermediates are read later, a statement before it binds them
        with ``value_and_grad`` (or ``vjp``) so the forward computation runs once."""
        inputs = site.inputs or []
        used = [i for i in inputs if i in params]
        unused = [i for i in inputs if i not in params]
        if unused and not site.allow_unused:
            self._fail(
                ctx,
                statement,
                f"the output does not depend on `{unused[0]}` (torch raises unless allow_unused=True)",
            )
            return None
        if not used:
            return _tuple([cst.Name("None") for _ in inputs])
        args = [cst.Name(p) for p in params]
        base = (
            site.outputs[0].value
            if isinstance(site.outputs[0], cst.Name)
            else "forward"
        )
        aux_kwargs = {"has_aux": cst.Name("True")} if aux else {}
        value_target = _target(list(value_names)) if value_names else None
        if site.sens is not None:
            # The pullback returns one gradient per function input, in order.
            if params != used:
                self._fail(
                    ctx, statement, "grad_outputs with leaves that are not inputs"
                )
                return None
            vjp_call = _call(ctx, "mindspore.vjp", [cst.Name(fname), *args], aux_kwargs)
            if value_target is not None:
                pullback = self._fresh(f"{base}_vjp", ctx)
                head = [
                    value_target if not aux else cst.Name(value_names[0]),
                    cst.Name(pullback),
                ]
                if aux:
                    head.append(_target(list(aux)))
                emitted.append(_assign(_tuple(head, parens=False), vjp_call))
                per_input = cst.Call(cst.Name(pullback), [cst.Arg(site.sens)])
            else:
                per_input = cst.Call(
                    cst.Subscript(
                        vjp_call, [cst.SubscriptElement(cst.Index(cst.Integer("1")))]
                    ),
                    [cst.Arg(site.sens)],
                )
            single = False
        else:
            positions = [params.index(i) for i in used]
            position = (
                cst.Integer(str(positions[0]))
                if len(positions) == 1
                else _tuple([cst.Integer(str(p)) for p in positions])
            )
            if value_target is not None:
                temp = self._fresh(
                    f"{base}_grads" if len(used) > 1 else f"{base}_grad", ctx
                )
                function = _call(
                    ctx,
                    "mindspore.value_and_grad",
                    [cst.Name(fname)],
                    {"grad_position": position, **aux_kwargs},
                )
                emitted.append(
                    _assign(
                        _tuple([value_target, cst.Name(temp)], parens=False),
                        cst.Call(function, [cst.Arg(a) for a in args]),
                    )
                )
                per_input = cst.Name(temp)
            else:
                function = _call(
                    ctx,
                    "mindspore.grad",
                    [cst.Name(fname)],
                    {"grad_position": position},
                )
                per_input = cst.Call(function, [cst.Arg(a) for a in args])
            single = len(used) == 1
        if single:
            return _tuple(
                [per_input if i in used else cst.Name("None") for i in inputs]
            )
        if not unused:
            return per_input
        if not isinstance(per_input, cst.Name):
            temp = self._fresh("grads", ctx)
            emitted.append(_assign(cst.Name(temp), per_input))
            per_input = cst.Name(temp)
        return _tuple(
            [
                cst.Subscript(
                    per_input,
                    [cst.SubscriptElement(cst.Index(cst.Integer(str(used.index(i)))))],
                )
                if i in used
                else cst.Name("None")
                for i in inputs
            ]
        )

    # -- analysis -------------------------------------------------------------------------------
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
                needed = (needed - bound) | reads(s)
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
                func = call.func
                if (
                    isinstance(func, cst.Attribute)
                    and isinstance(func.value, cst.Name)
                    and func.value.value == name
                    and func.attr.value.endswith("_")
                    and not func.attr.value.endswith("__")
                    and func.attr.value != "requires_grad_"
                ):
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
        elif not scope or loop:
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

    # -- what is left -------------------------------------------------------------------------
    def _report_left(self, body, ctx: ModuleContext) -> None:
        rule = self

        class _Left(cst.CSTVisitor):
            def __init__(self) -> None:
                self.statement = None
                self.loop_steps: list[bool] = []

            def visit_SimpleStatementLine(self, node) -> None:
                site = rule._site(node, ctx)
                if site is None or id(node) in claimed(ctx) or any(self.loop_steps):
                    return
                if site.kind == "backward" and rule._followed_by_step(node, body):
                    return
                line = ctx.position(node)[0]
                if any(f.rule == "TM910" and f.line == line for f in ctx.findings):
                    return
                rule._fail(
                    ctx,
                    node,
                    "its leaves or forward computation are not in the same block",
                )

            def visit_For(self, node) -> None:
                self.loop_steps.append(rule._loop_has_step(node))

            def leave_For(self, node) -> None:
                self.loop_steps.pop()

            visit_While = visit_For
            leave_While = leave_For

        for statement in body:
            statement.visit(_Left())

    @staticmethod
    def _loop_has_step(node) -> bool:
        return any(
            isinstance(c.func, cst.Attribute) and c.func.attr.value == "step"
            for c in calls(node)
        )

    @staticmethod
    def _followed_by_step(node, body) -> bool:
        return any(
            isinstance(c.func, cst.Attribute) and c.func.attr.value == "step"
            for s in body
            for c in calls(s)
        )
