"""The tree pass: merge the index records of a tree's files (``tree_index``) into each file's facts.

The workers index every file of a tree (one read, one ``ast`` parse) and send back its record;
here the main process merges them, without opening any file:
- the torch aliases each file receives through star imports (``star_imports``) and the names it
  imports that are Module classes (``tree_classes``), from the files' summaries;
- the step facts (``tree_merge``) of the files with step hints. When those define step helpers, a
  file without hints that names one takes part too: the workers tell which when they read it to
  convert it (``StepProbe``), send back its step index instead, and the files of the step pass are
  converted once all of it is merged.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .sources import UnreadableSource, decode
from .star_imports import inherited_aliases
from .tree import FileFacts, FileIndex, module_name
from .tree_classes import ModuleClasses
from .tree_index import (
    FileRecord,
    ModuleSummary,
    base_of,
    read_summary,
    record,
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
    """The tasks with their facts: those to convert now, and those of the step pass, held until
    the step indexes the conversions send back are merged."""

    ready: list
    held: list
    # root -> the step indexes of its files with hints, in the order of its tasks
    hinted: dict[str, list[FileIndex]]
    # Files of the tree no task read, summarised here (left out of the run with --exclude).
    read_here: int = 0


def plan_facts(tasks: Sequence, records: Mapping[str, FileRecord]) -> TreePlan:
    """Each task with the facts of its tree (``records``: by task path; a lone file has none)."""
    roots: dict[str, list] = {}
    for task in tasks:
        if task.root is not None:
            roots.setdefault(task.root, []).append(task)
    result = TreePlan([t for t in tasks if t.root is None], [], {})
    for root, members in roots.items():
        summary = _Summaries(
            root, [found for t in members if (found := records.get(t.path))]
        )
        classes = ModuleClasses(summary)
        hinted = [
            found.steps
            for t in members
            if (found := records.get(t.path)) is not None
            and found.hinted
            and found.steps is not None
        ]
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
            found = records.get(task.path)
            task = dataclasses.replace(
                task,
                inherited=inherited_aliases(found, summary) if found else {},
                module_classes=classes.of(found) if found else frozenset(),
                tree=steps.get(task.path),
            )
            if probe is not None and found is not None and found.hinted:
                if found.steps is not None:
                    result.held.append(task)
                    continue
            elif probe is not None:
                task = dataclasses.replace(task, probe=probe)
            result.ready.append(task)
        result.read_here += summary.read_here
    return result


class _Summaries:
    """The summaries of a tree's files by path; a file of the tree no task read (one left out
    with --exclude) is read here, once."""

    def __init__(self, root: str, records: Sequence[FileRecord]) -> None:
        self.root = root
        self.known: dict[str, ModuleSummary | None] = {
            found.path: found.summary for found in records
        }
        self.read_here = 0

    def __call__(self, path: str) -> ModuleSummary | None:
        if path not in self.known:
            self.known[path] = read_summary(path, self.root)
            self.read_here += 1
        return self.known[path]


def settle_steps(
    plan: TreePlan, later: Mapping[str, FileIndex], order: Sequence
) -> list:
    """The held tasks and those whose conversion sent back a step index instead (``later``, by
    task path), with the merged step facts of their tree, in the run's order (``order``)."""
    position = {t.path: i for i, t in enumerate(order)}
    named = {t.path: t for t in plan.ready if t.path in later}
    facts: dict[str, FileFacts] = {}
    for root, hinted in plan.hinted.items():
        found = sorted((p for p, t in named.items() if t.root == root), key=position.get)
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
    """The tree pass of a run in one process, for trees held in memory (``texts``: each task's
    bytes by its path): the tasks with all their facts."""
    parsed: dict[str, tuple[str | None, ast.Module | None]] = {}
    records: dict[str, FileRecord] = {}
    for task in tasks:
        if task.root is None:
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
            found = step_index(
                task.path, task.display, texts[task.path], *parsed[task.path], task.root
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


def tree_facts(files: Sequence[tuple[str, str]], root: str) -> dict[str, FileFacts]:
    """The step facts of the Python files (``(path, display)``) of the tree at ``root``."""
    from .runner import Task

    texts: dict[str, bytes] = {}
    for path, _ in files:
        with open(path, "rb") as handle:
            texts[path] = handle.read()
    tasks = [Task(path, display, None, root=root) for path, display in files]
    return {t.path: t.tree for t in tree_tasks(tasks, texts) if t.tree is not None}
