"""Functions that read only the ``.grad`` of the parameters they are given (a gradient-norm
helper: ``get_grad_norm_(parameters)``).

Such a function is a function of the gradients: a step helper that calls it after its backward
stays convertible, the call handing it the gradient values in place of the parameters' ``.grad``.
Found on the cheap ``ast`` parse, per file, for the tree pass.
"""

from __future__ import annotations

import ast

# What may be done with the parameters argument itself, besides iterating over it.
_ARGUMENT_CALLS = frozenset({"isinstance", "len", "list", "tuple"})


def grad_readers(tree: ast.Module) -> set[str]:
    """Names of the module's top-level functions whose first parameter's elements are read only
    through ``.grad``."""
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and _reads_only_grads(node):
            found.add(node.name)
    return found


def _reads_only_grads(node: ast.FunctionDef) -> bool:
    args = [*node.args.posonlyargs, *node.args.args]
    if not args:
        return False
    argument = args[0].arg
    parents: dict[int, ast.AST] = {}
    for parent in ast.walk(node):
        for child in ast.iter_child_nodes(parent):
            parents[id(child)] = parent
    elements: set[str] = set()
    for inner in ast.walk(node):
        if isinstance(inner, (ast.For, ast.comprehension)) and _is_name(
            inner.iter, argument
        ):
            if not isinstance(inner.target, ast.Name):
                return False
            elements.add(inner.target.id)
    if argument in elements:
        return False
    reads_grad = False
    for inner in ast.walk(node):
        if not isinstance(inner, ast.Name):
            continue
        parent = parents.get(id(inner))
        if inner.id in elements and isinstance(inner.ctx, ast.Load):
            if _filtered(inner, parent, parents, argument):
                continue
            if not (
                isinstance(parent, ast.Attribute)
                and parent.attr == "grad"
                and _only_read(parent, parents)
            ):
                return False
            reads_grad = True
        elif inner.id == argument and isinstance(inner.ctx, ast.Load):
            if not _argument_use(inner, parent, parents):
                return False
    return reads_grad


def _argument_use(name: ast.Name, parent, parents) -> bool:
    """``for p in P``, ``isinstance(P, T)``, ``len(P)``, ``[P]``, ``P[i].grad``."""
    if isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is name:
        return True
    if isinstance(parent, ast.Call) and name in parent.args:
        return isinstance(parent.func, ast.Name) and parent.func.id in _ARGUMENT_CALLS
    if isinstance(parent, ast.List) and isinstance(parents.get(id(parent)), ast.Assign):
        return True  # ``parameters = [parameters]``
    if isinstance(parent, ast.Subscript) and parent.value is name:
        above = parents.get(id(parent))
        return (
            isinstance(above, ast.Attribute)
            and above.attr == "grad"
            and _only_read(above, parents)
        )
    return False


def _filtered(name: ast.Name, parent, parents, argument: str) -> bool:
    """``parameters = [p for p in parameters if p.grad is not None]``: the elements kept, as
    they are, under the argument's own name."""
    if not isinstance(parent, ast.ListComp) or parent.elt is not name:
        return False
    assign = parents.get(id(parent))
    return (
        isinstance(assign, ast.Assign)
        and len(assign.targets) == 1
        and _is_name(assign.targets[0], argument)
        and all(_is_name(g.iter, argument) for g in parent.generators)
    )


def _only_read(grad: ast.Attribute, parents) -> bool:
    """``p.grad`` and what is computed from it change nothing: no in-place method
    (``p.grad.zero_()``, ``p.grad.data.mul_(c)``) and no assignment."""
    node: ast.AST = grad
    while True:
        if not isinstance(getattr(node, "ctx", ast.Load()), ast.Load):
            return False
        parent = parents.get(id(node))
        if isinstance(parent, ast.Attribute) and parent.value is node:
            if parent.attr.endswith("_") and not parent.attr.endswith("__"):
                return False
            node = parent
        elif isinstance(parent, ast.Call) and parent.func is node:
            node = parent
        elif isinstance(parent, ast.AugAssign) and parent.target is node:
            return False
        else:
            return True


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name
