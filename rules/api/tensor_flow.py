"""Tensors followed into the functions of a module through their calls.

A parameter of a module-level function is a tensor where the function is only ever called in the
module (never passed on as a value, never rebound) and every call passes a tensor for it, with an
argument the caller's own analysis (`tensor_names`) shows is one. It *may* be a tensor where some
call passes one. Each scope's names are recomputed with what its callers pass until nothing changes.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from .tensor_names import Kinds, _own_nodes, is_tensor, scope_line, scopes, tensor_names

_ROUNDS = 6  # enough for a chain of helpers calling helpers; the rest stays unknown


@dataclass(frozen=True)
class ModuleTensors:
    """Per scope (by `scope_line`): names certainly tensors, and names that may be."""

    certain: dict[int, frozenset[str]]
    possible: dict[int, frozenset[str]]


def module_tensors(
    tree: ast.Module, kinds: Kinds, names: list[ast.Name] | None = None
) -> ModuleTensors:
    """``names``: the module's ``ast.Name`` nodes, where the caller has them listed."""
    all_scopes = scopes(tree)
    # Each scope's own nodes, listed once for every round of both solutions.
    own = {scope: _own_nodes(scope) for scope in all_scopes}
    if names is None:
        names = [node for node in ast.walk(tree) if isinstance(node, ast.Name)]
    calls = _call_sites(tree, all_scopes, own, names)
    certain = _solve(all_scopes, calls, kinds, False, own)
    possible = _solve(all_scopes, calls, kinds, True, own)
    return ModuleTensors(
        certain,
        {line: possible[line] | certain[line] for line in possible},
    )


def _solve(
    all_scopes: list[ast.AST],
    calls: dict[ast.FunctionDef, list[tuple[ast.Call, ast.AST]]],
    kinds: Kinds,
    optimistic: bool,
    own: dict[ast.AST, list[ast.AST]],
) -> dict[int, frozenset[str]]:
    arguments: dict[ast.AST, frozenset[str]] = {}
    names: dict[ast.AST, frozenset[str]] = {}
    # A scope's names depend only on what its callers pass: each round works out again only the
    # scopes whose arguments changed.
    known: dict[tuple[ast.AST, frozenset[str]], frozenset[str]] = {}
    for _ in range(_ROUNDS):
        names = {}
        for scope in all_scopes:
            key = (scope, arguments.get(scope, frozenset()))
            found = known.get(key)
            if found is None:
                found = known[key] = tensor_names(
                    scope, kinds, key[1], optimistic, own[scope]
                )
            names[scope] = found
        passed = {
            function: _tensor_parameters(function, sites, kinds, names, optimistic)
            for function, sites in calls.items()
        }
        if passed == arguments:
            break
        arguments = passed
    return {scope_line(scope): found for scope, found in names.items()}


def _tensor_parameters(
    function: ast.FunctionDef,
    sites: list[tuple[ast.Call, ast.AST]],
    kinds: Kinds,
    names: dict[ast.AST, frozenset[str]],
    optimistic: bool,
) -> frozenset[str]:
    found = set()
    for parameter in _parameters(function):
        passed = [
            _passed(call, function, parameter, kinds, names[caller])
            for call, caller in sites
        ]
        if (optimistic and any(passed)) or (passed and all(passed)):
            found.add(parameter)
    return frozenset(found)


def _parameters(function: ast.FunctionDef) -> list[str]:
    arguments = function.args
    return [a.arg for a in (*arguments.posonlyargs, *arguments.args)] + [
        a.arg for a in arguments.kwonlyargs
    ]


def _passed(
    call: ast.Call,
    function: ast.FunctionDef,
    parameter: str,
    kinds: Kinds,
    caller_names: frozenset[str],
) -> bool:
    """Whether this call passes a tensor for ``parameter`` (its default counts where it is left out)."""
    arguments = function.args
    positional = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
    value: ast.AST | None = None
    if parameter in positional and positional.index(parameter) < len(call.args):
        value = call.args[positional.index(parameter)]
    for keyword in call.keywords:
        if keyword.arg == parameter:
            value = keyword.value
    if value is None:
        return (
            False  # a default is a value of the module, not of the caller: left unknown
        )
    return is_tensor(value, kinds, caller_names)


def _call_sites(
    tree: ast.Module,
    all_scopes: list[ast.AST],
    own: dict[ast.AST, list[ast.AST]],
    names: list[ast.Name],
) -> dict[ast.FunctionDef, list[tuple[ast.Call, ast.AST]]]:
    """For each module-level function called only by name, with plain arguments: its calls, each
    with the scope it is in."""
    functions: dict[str, ast.FunctionDef] = {}
    defined: dict[str, int] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            defined[node.name] = defined.get(node.name, 0) + 1
            if isinstance(node, ast.FunctionDef):
                functions[node.name] = node
    functions = {n: f for n, f in functions.items() if defined[n] == 1}
    references: dict[str, int] = {}
    for node in names:
        if node.id in functions:
            if not isinstance(node.ctx, ast.Load):
                functions.pop(node.id)  # rebound somewhere
            else:
                references[node.id] = references.get(node.id, 0) + 1
    sites: dict[str, list[tuple[ast.Call, ast.AST]]] = {n: [] for n in functions}
    for scope in all_scopes:
        for node in own[scope]:
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in sites
            ):
                sites[node.func.id].append((node, scope))
    result = {}
    for name, found in sites.items():
        plain = all(
            not any(isinstance(a, ast.Starred) for a in call.args)
            and all(k.arg is not None for k in call.keywords)
            for call, _ in found
        )
        # Every reference is one of these calls: the function never flows as a value.
        if found and plain and len(found) == references.get(name, 0):
            result[functions[name]] = found
    return result
