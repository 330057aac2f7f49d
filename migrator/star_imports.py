"""Torch names that reach a module through `from .module import *` (a tree fact).

``from .activations import *`` hands the importing module whatever ``activations`` imported from
torch (``torch``, ``nn``, ``F``); converting ``activations`` removes those imports, so the importing
module must be converted as if it had imported them itself.
"""

from __future__ import annotations

import ast
import os

from .tree_index import summary


def inherited_aliases(
    path: str, source: str, root: str | None, tree: ast.Module | None = None
) -> dict[str, str]:
    """Torch aliases the file at ``path`` (whose text is ``source``, whose ``ast`` is ``tree``
    when the caller has it) receives through star imports of other files in the tree at
    ``root`` (nothing for a lone file)."""
    if root is None or "import *" not in source:
        return {}
    try:
        tree = tree or ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    found: dict[str, str] = {}
    for node in tree.body:
        if not (
            isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names)
        ):
            continue
        module_file = module_file_of(path, root, node.level, node.module)
        if module_file is None:
            continue
        exported = summary(module_file)
        if exported is None:
            continue
        for local, target in exported.exported.items():
            found.setdefault(local, target)
    return found


def module_file_of(path: str, root: str, level: int, module: str | None) -> str | None:
    """The file in the tree that ``from <module> import ...`` (``level`` dots) in the file at
    ``path`` imports from, if any."""
    root = os.path.abspath(root)
    if level:
        base = os.path.dirname(os.path.abspath(path))
        for _ in range(level - 1):
            base = os.path.dirname(base)
    else:
        # An absolute import names the tree's top package (`timm.layers.x` inside `timm/`).
        base = os.path.dirname(root)
    parts = module.split(".") if module else []
    candidate = os.path.join(base, *parts)
    for option in (candidate + ".py", os.path.join(candidate, "__init__.py")):
        if os.path.isfile(option) and (option + os.sep).startswith(root + os.sep):
            return option
    return None
