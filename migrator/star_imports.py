"""Torch names that reach a module through `from .module import *` (a tree fact).

``from .activations import *`` hands the importing module whatever ``activations`` imported from
torch (``torch``, ``nn``, ``F``); converting ``activations`` removes those imports, so the importing
module must be converted as if it had imported them itself. Read from the summaries of the tree
index (``tree_index``); this module opens no file.
"""

from __future__ import annotations

from collections.abc import Callable

from .tree_index import ModuleSummary, OwnImports


def inherited_aliases(
    imports: OwnImports, summaries: Callable[[str], ModuleSummary | None]
) -> dict[str, str]:
    """Torch aliases a file (whose own imports are ``imports``) receives through star imports
    of other files of the tree."""
    if not imports.has_star:
        return {}
    inherited: dict[str, str] = {}
    for module_file in imports.stars:
        exported = summaries(module_file)
        if exported is None:
            continue
        for local, target in exported.exported.items():
            inherited.setdefault(local, target)
    return inherited
