"""The module's ``ast`` tree, parsed once and shared by the rules that read the original source."""

from __future__ import annotations

import ast

from ...migrator.context import ModuleContext

AST = "ast"


def module_tree(ctx: ModuleContext) -> ast.Module:
    """The ``ast`` tree of ``ctx.source`` (the one the engine parsed, when it left it in ``ctx.state``).

    Shared: callers must not change it."""
    tree = ctx.state.get(AST)
    if tree is None:
        tree = ctx.state[AST] = ast.parse(ctx.source)
    return tree  # type: ignore[return-value]
