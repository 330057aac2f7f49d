"""TM419: `torch.cat` of a tensor the module starts as torch's 1-D empty placeholder.

`self.keys = torch.tensor([])` and later `torch.cat([self.keys, k], dim=-2)`: torch skips tensors
of shape (0,) in `cat`, MindSpore's `ops.cat` refuses them. Where the module assigns such a
placeholder to a name or attribute and concatenates that name, the call goes through the
companion's `cat_skipping_empty`; every other `cat` keeps the `ops.cat` idiom.
"""

from __future__ import annotations

import ast

import libcst as cst

from ...migrator.aliases import dotted, resolve, statements
from ...migrator.context import ModuleContext
from ...migrator.rule import API, Example, Rule, RuleMeta, register

_CATS = frozenset({"torch.cat", "torch.concat", "torch.concatenate"})
_CREATIONS = frozenset({"torch.tensor", "torch.empty", "torch.zeros", "torch.ones"})

META = RuleMeta(
    id="TM419",
    title="`cat` of torch's empty placeholder skips it, as torch does",
    what="Rewrites `torch.cat([x, y], dim)` to `ms_aux.cat_skipping_empty([x, y], dim)` where the "
    "module assigns `x` (a name or attribute) a 1-D empty tensor (`torch.tensor([])`, "
    "`torch.empty(0)`).",
    why="torch's `cat` skips tensors of shape (0,), so an empty placeholder grows by "
    "concatenation (a key/value cache); MindSpore's `ops.cat` requires equal ranks.",
    use_instead="Start from `None` and assign the first tensor, or concatenate with `ops.cat` "
    "only once the placeholder holds data.",
    examples=(
        Example(
            before="import torch\n\n\nclass Cache:\n    def reset(self):\n"
            "        self.keys = torch.tensor([])\n\n    def update(self, k):\n"
            "        self.keys = torch.cat([self.keys, k], dim=-2)\n",
            after="import mindspore\nimport ms_aux\n\n\nclass Cache:\n    def reset(self):\n"
            "        self.keys = mindspore.tensor([])\n\n    def update(self, k):\n"
            "        self.keys = ms_aux.cat_skipping_empty([self.keys, k], dim=-2)\n",
        ),
    ),
    severity="note",
    family="api",
)


def _empty_creation(node: ast.AST, aliases: dict[str, str]) -> bool:
    if not isinstance(node, ast.Call) or not node.args:
        return False
    name = dotted(node.func)
    if name is None or resolve(name, aliases) not in _CREATIONS:
        return False
    first = node.args[0]
    if resolve(name, aliases) == "torch.tensor":
        return isinstance(first, (ast.List, ast.Tuple)) and not first.elts
    if isinstance(first, (ast.Tuple, ast.List)) and len(first.elts) == 1:
        first = first.elts[0]
    return len(node.args) == 1 and isinstance(first, ast.Constant) and first.value == 0


def placeholders(tree: ast.AST, aliases: dict[str, str]) -> frozenset[str]:
    """Names and attributes (`self.keys`) the module assigns a 1-D empty tensor."""
    found = set()
    for node in statements(
        tree
    ):  # assignments are statements: no expression is entered
        if isinstance(node, ast.Assign) and _empty_creation(node.value, aliases):
            for target in node.targets:
                items = target.elts if isinstance(target, ast.Tuple) else [target]
                found.update(d for d in map(dotted, items) if d)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Tuple):
            for target in node.targets:
                if isinstance(target, ast.Tuple) and len(target.elts) == len(
                    node.value.elts
                ):
                    for t, v in zip(target.elts, node.value.elts):
                        if _empty_creation(v, aliases) and dotted(t):
                            found.add(dotted(t))
    return frozenset(found)


@register
class EmptyCatRule(Rule):
    meta = META
    stage = API
    order = 45
    triggers = ("cat",)
    # Reads `cat` calls in marked statements only; its placeholders come from the ast tree.
    unmarked_words = ()

    def __init__(self) -> None:
        self.placeholders: frozenset[str] | None = None

    def leave_Call(self, original: cst.Call, updated: cst.Call, ctx: ModuleContext):
        if ctx.qualname(original.func) not in _CATS or not original.args:
            return updated
        listed = original.args[0].value
        if not isinstance(listed, (cst.List, cst.Tuple)):
            return updated
        if self.placeholders is None:
            tree = ctx.state.get("ast")
            self.placeholders = (
                placeholders(tree, ctx.aliases) if tree is not None else frozenset()
            )
        if not any(ctx.dotted(e.value) in self.placeholders for e in listed.elements):
            return updated
        ctx.applied.add(META.id)
        return updated.with_changes(func=ctx.companion("cat_skipping_empty"))
