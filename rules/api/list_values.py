"""Names that hold a list where MindSpore's layers take an int or a tuple.

torch's layers take a list wherever they take a tuple of sizes (`nn.MaxPool2d([3, 3], [2, 2])`);
MindSpore's take an int or a tuple and raise on a list. A call of a layer class that passes a name
bound to a list display or comprehension in the function around it goes to the companion class,
which takes torch's forms.
"""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.engine import visit

_LISTS = (cst.List, cst.ListComp)


class _ListBindings(cst.CSTVisitor):
    """Names assigned a list display or comprehension, outside nested functions and classes."""

    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        if isinstance(node.value, _LISTS):
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    self.names.add(target.target.value)


def _function_lists(ctx: ModuleContext) -> set[str]:
    for node in reversed(ctx.stack):
        if isinstance(node, cst.FunctionDef):
            cache = ctx.state.setdefault(__name__, {})
            found = cache.get(id(node))
            if found is None:
                visitor = _ListBindings()
                visit(node.body, visitor)
                found = cache[id(node)] = (node, visitor.names)
            return found[1]
    return set()


def passes_list(call: cst.Call, ctx: ModuleContext) -> bool:
    """Whether an argument of ``call`` is a list display, a comprehension, or a name bound to one
    in the enclosing function."""
    names = None
    for arg in call.args:
        value = arg.value
        if isinstance(value, _LISTS):
            return True
        if isinstance(value, cst.Name):
            if names is None:
                names = _function_lists(ctx)
            if value.value in names:
                return True
    return False
