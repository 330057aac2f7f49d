"""Module classes that reach a file from other files of the tree (a tree fact).

``class ClassificationTask(TrainingTask)`` in ``timm/task/classification.py`` is a Module because
``TrainingTask``, imported from ``.task``, derives from ``nn.Module``: its ``forward`` must become
``construct`` like any Module's, although the file itself never names ``nn.Module``. This module
follows the file's ``from ... import`` of the tree's own modules, through re-exports and chains of
base classes, on the summaries of the tree index (``tree_index``), and gives the imported names
that are Module classes. It opens no file.
"""

from __future__ import annotations

from collections.abc import Callable

from .aliases import resolve
from .tree_index import ModuleSummary, OwnImports

_DEPTH = 12

Summaries = Callable[[str], ModuleSummary | None]


class ModuleClasses:
    """Answers "is ``name`` in this file of the tree a Module class" from the files' summaries,
    each answer computed once."""

    def __init__(self, summaries: Summaries) -> None:
        self.summaries = summaries
        self.known: dict[tuple[str, str, int], bool] = {}

    def of(self, imports: OwnImports) -> frozenset[str]:
        """The names a file (whose own imports are ``imports``) imports from other files of the
        tree that are Module classes."""
        if not imports.has_import:
            return frozenset()
        return frozenset(
            local
            for (origin, name), local in imports.names
            if origin is not None and self.is_module(origin, name, 0)
        )

    def is_module(self, path: str, name: str, depth: int) -> bool:
        """Whether ``name`` in the file at ``path`` is a class deriving from a torch Module,
        directly or through classes of the tree (followed up to a fixed depth)."""
        key = (path, name, depth)
        answer = self.known.get(key)
        if answer is None:
            answer = self.known[key] = self._is_module(path, name, depth)
        return answer

    def _is_module(self, path: str, name: str, depth: int) -> bool:
        if depth > _DEPTH:
            return False
        found = self.summaries(path)
        if found is None:
            return False
        bases = found.classes.get(name)
        if bases is not None:
            return any(
                self._is_module_base(base, path, found.aliases, depth) for base in bases
            )
        origin, imported = found.imports.get(name, (None, ""))
        return origin is not None and self.is_module(origin, imported, depth + 1)

    def _is_module_base(
        self, name: str | None, path: str, aliases: dict[str, str], depth: int
    ) -> bool:
        if name is None:
            return False
        qualified = resolve(name, aliases)
        if qualified is not None:
            from ..rules.nn.layers import is_layer

            return is_layer(qualified)
        if "." in name:
            return False
        return self.is_module(path, name, depth + 1)
