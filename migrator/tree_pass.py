"""The tree pass: facts that cross the files of a tree, from one index of several kinds of fact
(``tree_index``), merged in the main process and read by each file's conversion from its context.

1. The workers look at every file's bytes (``Scan``): which files of the tree its top-level
   ``from ... import`` read, and whether it has step hints.
2. They index the files others import from and those with step hints (one ``ast`` parse each):
   summaries (star-import aliases, classes and their bases, re-exports) and step indexes.
3. The main process merges the step indexes into each file's step facts (``tree_merge``) and sends
   the summaries to each worker once (``install``). Each file is converted by the worker that
   looked at it and indexed it, from the bytes and the ``ast`` it kept (``reads``), and finds its
   star-import aliases and imported Module classes from its own ``ast`` and those summaries,
   opening no other file.
4. When the step indexes define step helpers, a file without hints that names one takes part in
   the step pass too: its worker tells so when it reads it (``StepProbe``) and sends back its step
   index instead of converting it; the files of the step pass are converted once that is merged.
"""

from __future__ import annotations

import ast
import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .sources import UnreadableSource, decode
from .star_imports import inherited_aliases
from .tree import FileFacts, FileIndex, module_name
from .tree_classes import ModuleClasses
from .tree_index import (
    STEP_HINTS,
    FileRecord,
    ModuleSummary,
    Scan,
    base_of,
    own_imports,
    read_summary,
    record,
    scan,
    step_index,
)
from .tree_merge import merge


@dataclass(frozen=True)
class StepProbe:
    """What a worker needs to tell whether a file without step hints takes part in the step pass:
    it names a step helper of the tree, or reads `.grad` in a module the helpers import from."""

    names: tuple[bytes, ...]
    imported: frozenset[str]
    base: str

    def wants(self, path: str, data: bytes) -> bool:
        return any(name in data for name in self.names) or (
            b".grad" in data and module_name(path, self.base) in self.imported
        )


@dataclass
class TreePlan:
    """The tasks with their step facts: those to convert now, and those of the step pass, held
    until the step indexes the conversions send back are merged; and each tree's summaries."""

    ready: list
    held: list
    # root -> the step indexes of its files with hints, in the order of its tasks
    hinted: dict[str, list[FileIndex]]
    # root -> path -> summary, for the files other files import from
    tables: dict[str, dict[str, ModuleSummary | None]]


def to_index(tasks: Sequence, scans: Sequence[Scan]) -> list:
    """The tasks whose files the tree needs an index entry of: those other files import from,
    and those with step hints."""
    read = {path for found in scans for path in found.reads}
    hinted = {found.path for found in scans if found.hinted}
    return [
        t
        for t in tasks
        if t.root is not None and (t.path in hinted or os.path.abspath(t.path) in read)
    ]


def plan_facts(tasks: Sequence, records: Mapping[str, FileRecord]) -> TreePlan:
    """Each task with the step facts of its tree (``records``: by task path; a lone file has
    none), and the summaries each tree's conversions read their other facts from."""
    roots: dict[str, list] = {}
    for task in tasks:
        if task.root is not None:
            roots.setdefault(task.root, []).append(task)
    result = TreePlan([t for t in tasks if t.root is None], [], {}, {})
    for root, members in roots.items():
        found = [records[t.path] for t in members if t.path in records]
        result.tables[root] = {entry.path: entry.summary for entry in found}
        hinted = [e.steps for e in found if e.hinted and e.steps is not None]
        names = {name for index in hinted for name in index.helpers}
        probe = None
        steps: dict[str, FileFacts] = {}
        if names:
            imported = frozenset(
                target.rsplit(".", 1)[0]
                for index in hinted
                if index.helpers
                for target in index.imports.values()
            )
            probe = StepProbe(
                tuple(sorted(n.encode() for n in names)), imported, base_of(root)
            )
            result.hinted[root] = hinted
        elif hinted:
            steps = merge(hinted)
        for task in members:
            entry = records.get(task.path)
            if probe is not None and entry is not None and entry.hinted:
                if entry.steps is not None:
                    result.held.append(task)
                    continue
            elif probe is not None:
                task = dataclasses.replace(task, probe=probe)
            result.ready.append(dataclasses.replace(task, tree=steps.get(task.path)))
    return result


class _Summaries:
    """The summaries of a tree's files by path, and which of their names are Module classes; a
    file of the tree no summary was sent for (one left out with --exclude, or whose import the
    first look missed) is read here, once."""

    def __init__(self, root: str, known: Mapping[str, ModuleSummary | None]) -> None:
        self.root = root
        self.known = dict(known)
        self.read_here: list[str] = []
        self.classes = ModuleClasses(self)

    def __call__(self, path: str) -> ModuleSummary | None:
        if path not in self.known:
            self.known[path] = read_summary(path, self.root)
            self.read_here.append(path)
        return self.known[path]


# Per process: root -> the summaries its conversions read facts from (``install``).
_TABLES: dict[str, _Summaries] = {}


def install(tables: Mapping[str, Mapping[str, ModuleSummary | None]] | None) -> None:
    """Give this process the summaries of the trees it converts files of (in the main process
    after the index, and in each worker of the conversions as it starts)."""
    _TABLES.clear()
    for root, known in (tables or {}).items():
        _TABLES[root] = _Summaries(root, known)


def read_here() -> list[str]:
    """The files this process read a summary of itself (none when the index had them all)."""
    return [path for table in _TABLES.values() for path in table.read_here]


def file_facts(
    path: str, root: str | None, text: str, tree: ast.Module | None
) -> tuple[dict[str, str], frozenset[str]]:
    """The torch aliases a file of the tree at ``root`` receives through star imports, and the
    names it imports that are Module classes (nothing for a lone file), from its own ``ast``."""
    if root is None:
        return {}, frozenset()
    table = _TABLES.get(root)
    if table is None:
        table = _TABLES[root] = _Summaries(root, {})
    imports = own_imports(os.path.abspath(path), text, tree, os.path.abspath(root))
    return inherited_aliases(imports, table), table.classes.of(imports)


def settle_steps(
    plan: TreePlan, later: Mapping[str, FileIndex], order: Sequence
) -> list:
    """The held tasks and those whose conversion sent back a step index instead (``later``, by
    task path), with the merged step facts of their tree, in the run's order (``order``)."""
    position = {t.path: i for i, t in enumerate(order)}
    named = {t.path: t for t in plan.ready if t.path in later}
    facts: dict[str, FileFacts] = {}
    for root, hinted in plan.hinted.items():
        found = sorted(
            (p for p, t in named.items() if t.root == root), key=position.get
        )
        facts.update(merge([*hinted, *(later[p] for p in found)]))
    held = [*plan.held, *named.values()]
    return sorted(
        (dataclasses.replace(t, tree=facts.get(t.path), probe=None) for t in held),
        key=lambda t: position[t.path],
    )


def final_tasks(plan: TreePlan, settled: Sequence, order: Sequence) -> list:
    """The run's tasks (``order``) with their final facts."""
    final = {t.path: dataclasses.replace(t, probe=None) for t in plan.ready}
    final.update((t.path, t) for t in settled)
    return [final[t.path] for t in order]


def tree_tasks(tasks: Sequence, texts: Mapping[str, bytes]) -> list:
    """The step pass of a run in one process, for trees held in memory (``texts``: each task's
    bytes by its path): the tasks with their step facts."""
    parsed: dict[str, tuple[str | None, ast.Module | None]] = {}
    records: dict[str, FileRecord] = {}
    for task in tasks:
        if task.root is None or not any(h in texts[task.path] for h in STEP_HINTS):
            continue
        data = texts[task.path]
        parsed[task.path] = _parse(data)
        records[task.path] = record(
            task.path, task.display, data, *parsed[task.path], task.root
        )
    plan = plan_facts(tasks, records)
    later: dict[str, FileIndex] = {}
    for task in plan.ready:
        if task.probe is not None and task.probe.wants(task.path, texts[task.path]):
            text, tree = parsed.get(task.path) or _parse(texts[task.path])
            found = step_index(
                task.path, task.display, texts[task.path], text, tree, task.root
            )
            if found is not None:
                later[task.path] = found
    return final_tasks(plan, settle_steps(plan, later, tasks), tasks)


def _parse(data: bytes) -> tuple[str | None, ast.Module | None]:
    try:
        text = decode(data).text
    except UnreadableSource:
        return None, None
    try:
        return text, ast.parse(text)
    except (SyntaxError, ValueError):
        return text, None


def index_tree(files: Sequence[tuple[str, str]], root: str) -> TreePlan:
    """The tree pass's index of the Python files (``(path, display)``) of the tree at ``root``, in
    one process (the runner does the same in its workers)."""
    from .runner import Task

    tasks = [Task(path, display, None, root=root) for path, display in files]
    texts: dict[str, bytes] = {}
    for task in tasks:
        with open(task.path, "rb") as handle:
            texts[task.path] = handle.read()
    scans = [scan(t.path, t.display, texts[t.path], root) for t in tasks]
    records = {
        t.path: record(t.path, t.display, texts[t.path], *_parse(texts[t.path]), root)
        for t in to_index(tasks, scans)
    }
    return plan_facts(tasks, records)


def tree_facts(files: Sequence[tuple[str, str]], root: str) -> dict[str, FileFacts]:
    """The step facts of the Python files (``(path, display)``) of the tree at ``root``."""
    from .runner import Task

    texts: dict[str, bytes] = {}
    for path, _ in files:
        with open(path, "rb") as handle:
            texts[path] = handle.read()
    tasks = [Task(path, display, None, root=root) for path, display in files]
    return {t.path: t.tree for t in tree_tasks(tasks, texts) if t.tree is not None}
