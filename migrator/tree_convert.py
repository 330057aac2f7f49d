"""Convert a whole tree in memory, as ``torch2ms convert`` converts it (with the step facts of the
tree pass, and coupled files converted again until they agree), without writing anything: for the
corpus's package pairs and the coverage scripts."""

from __future__ import annotations

import os
from types import SimpleNamespace

from .companion import site_for
from .context import Options
from .convert import Result, convert_source
from .runner import Task
from .sources import discover
from .tree_merge import settle_coupled
from .tree_pass import tree_tasks


def convert_tree(
    root: str, options: Options | None = None, texts: dict[str, str] | None = None
) -> dict[str, Result]:
    """Each Python file under ``root`` (by its path relative to ``root``, with ``/``) converted.
    ``texts`` gives the files' text by relative path where it is already read."""
    options = options or Options()
    root = os.path.abspath(root)
    if texts is None:
        entries, _ = discover(root, (), ())
        texts = {}
        for entry in entries:
            if entry.kind == "python":
                with open(entry.path, encoding="utf-8", newline="") as handle:
                    texts[entry.relative] = handle.read()
    tasks = [
        Task(os.path.join(root, *name.split("/")), name, None, root=root)
        for name in sorted(texts)
    ]
    tasks = tree_tasks(tasks, {t.path: texts[t.display].encode("utf-8") for t in tasks})

    def convert(task: Task) -> SimpleNamespace:
        result = convert_source(
            texts[task.display],
            task.display,
            options,
            site_for(task.path, root, None)[1],
            facts=task.tree,
        )
        return SimpleNamespace(
            display=task.display, coupled=result.coupled, result=result
        )

    outcomes = settle_coupled(tasks, [convert(task) for task in tasks], convert)
    return {outcome.display: outcome.result for outcome in outcomes}
