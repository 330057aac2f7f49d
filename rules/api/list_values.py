"""Names that hold a list where MindSpore's layers take an int or a tuple.

torch's layers take a list wherever they take a tuple of sizes (`nn.MaxPool2d([3, 3], [2, 2])`);
MindSpore's take an int or a tuple and raise on a list. A call of a layer class that passes a name
bound to a list display or comprehension in the function around it goes to the companion class,
which takes torch's forms.
"""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext

_LISTS = (cst.List, cst.ListComp)


def _list_bindings(node: cst.CSTNode, names: set[str]) -> None:
    """Add the names assigned a list display or comprehension in ``node`` (a block, a statement
    or a clause), outside nested functions and classes. Only statements are entered: no
    assignment lies inside an expression."""
    cls = node.__class__
    if cls is cst.SimpleStatementLine or cls is cst.SimpleStatementSuite:
        for small in node.body:
            if small.__class__ is cst.Assign and isinstance(small.value, _LISTS):
                for target in small.targets:
                    if isinstance(target.target, cst.Name):
                        names.add(target.target.value)
        return
    if cls is cst.FunctionDef or cls is cst.ClassDef:
        return
    if cls is cst.IndentedBlock:
        for statement in node.body:
            _list_bindings(statement, names)
        return
    for name in _CLAUSES:
        value = getattr(node, name, None)
        if isinstance(value, (tuple, list)):
            for item in value:
                _list_bindings(item, names)
        elif isinstance(value, cst.CSTNode):
            _list_bindings(value, names)


# The fields of compound statements and their clauses that hold statements.
_CLAUSES = ("body", "handlers", "orelse", "finalbody", "cases")


def _function_lists(ctx: ModuleContext) -> set[str]:
    for node in reversed(ctx.stack):
        if isinstance(node, cst.FunctionDef):
            cache = ctx.state.setdefault(__name__, {})
            found = cache.get(id(node))
            if found is None:
                names: set[str] = set()
                _list_bindings(node.body, names)
                found = cache[id(node)] = (node, names)
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
