"""Merge the per-file indexes of the tree pass into each file's facts.

A parameter's type is known from how the callers in the tree build what they pass: every caller of
``train_one_epoch`` passes ``loss_scaler``, bound in its scope to ``NativeScaler()`` (or to None:
calling None fails, so a call of the parameter runs with the scaler). When callers pass different
classes, or something the pass cannot follow, the parameter is *uncertain* and its calls are
reported with that reason.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from .tree import (
    LIBRARY_STEP_CLASSES,
    NONE,
    UNKNOWN,
    FileFacts,
    FileIndex,
)


def library_key(qualified: str) -> str:
    return "library:" + qualified.rsplit(".", 1)[-1]


class _Tree:
    def __init__(self, indexes: Sequence[FileIndex]) -> None:
        self.indexes = list(indexes)
        self.modules = {index.module: index for index in self.indexes}
        self.helpers = {
            helper.key: (index, helper)
            for index in self.indexes
            for helper in index.helpers.values()
        }

    def canonical(self, qualified: str, depth: int = 0) -> str:
        """``timm.utils.NativeScaler`` -> ``timm.utils.cuda.NativeScaler`` through the re-exports
        of the tree's modules; a name outside the tree stays as it is."""
        module, _, name = qualified.rpartition(".")
        index = self.modules.get(module)
        if index is None or depth > 8:
            return qualified
        if name in index.defined:
            return qualified
        target = index.imports.get(name)
        return self.canonical(target, depth + 1) if target else qualified

    def resolve(self, index: FileIndex, name: str) -> str | None:
        head, dot, rest = name.partition(".")
        if head in index.imports:
            return self.canonical(index.imports[head] + dot + rest)
        if head in index.defined and not rest:
            return f"{index.module}.{head}" if index.module else head
        return None

    def kind_of(self, index: FileIndex, value: str) -> str:
        """A binding's value as a step kind: a helper class's key, a library step class, None."""
        if value == NONE:
            return NONE
        if value.startswith("call:"):
            qualified = self.resolve(index, value[5:])
            entry = self.helpers.get(qualified or "")
            if entry is not None:
                return qualified if entry[1].kind == "class" else UNKNOWN
            if qualified in LIBRARY_STEP_CLASSES:
                return library_key(qualified)
        return UNKNOWN

    def function(self, qualified: str | None):
        if qualified is None:
            return None
        module, _, name = qualified.rpartition(".")
        index = self.modules.get(module)
        if index is None or name not in index.params:
            return None
        return index, name


def _argument_kinds(tree: _Tree, index: FileIndex, scope: str, arg: str) -> set[str]:
    if arg == NONE:
        return {NONE}
    if arg.startswith("name:"):
        name = arg[5:]
        values = index.bindings.get((scope, name)) or index.bindings.get(("", name))
        if values:
            return {tree.kind_of(index, v) for v in values}
    return {UNKNOWN}


def merge(indexes: Sequence[FileIndex]) -> dict[str, FileFacts]:
    """Facts for every indexed file, keyed by its path."""
    tree = _Tree(indexes)
    # (defining file, function, parameter) -> kinds passed, and the files that pass a step class
    passed: dict[tuple[str, str, str], set[str]] = {}
    senders: dict[tuple[str, str, str], set[str]] = {}
    for index in tree.indexes:
        for scope, callee, args in index.calls:
            target = tree.function(tree.resolve(index, callee))
            if target is None:
                continue
            defining, name = target
            params, defaults = defining.params[name]
            given: dict[str, set[str]] = {}
            for where, arg in args:
                if where in ("*", "**"):
                    given = {}
                    break
                if isinstance(where, int) and where >= len(params):
                    continue  # into *args, or more arguments than the function takes
                param = params[where] if isinstance(where, int) else where
                given[param] = _argument_kinds(tree, index, scope, arg)
            for param in params:
                kinds = given.get(param)
                if kinds is None:
                    kinds = {NONE} if defaults.get(param) else {UNKNOWN}
                key = (defining.path, name, param)
                passed.setdefault(key, set()).update(kinds)
                if kinds - {NONE, UNKNOWN}:
                    senders.setdefault(key, set()).add(index.path)
    facts: dict[str, dict] = {
        index.path: {
            "helpers": {},
            "library": {},
            "uncertain": {},
            "elsewhere": set(),
            "coupled": set(),
        }
        for index in tree.indexes
    }
    for (path, function, param), kinds in sorted(passed.items()):
        steps = kinds - {NONE, UNKNOWN}
        if not steps:
            continue
        entry = facts[path]
        if len(steps) > 1 or UNKNOWN in kinds:
            shown = ", ".join(
                f"`{k.rsplit('.', 1)[-1].split(':')[-1]}`" for k in sorted(steps)
            )
            entry["uncertain"][param] = (
                f"`{param}` of `{function}` is {shown} for some callers and "
                + (
                    "another class"
                    if len(steps) > 1
                    else "a value the rule cannot follow"
                )
                + " for others, so which step it runs is known only at run time"
            )
            continue
        (kind,) = steps
        previous = entry["helpers"].get(param) or entry["library"].get(param)
        if previous is not None and getattr(previous, "key", previous) != kind:
            entry["uncertain"][param] = (
                f"`{param}` names different loss scalers in different functions of this file"
            )
            continue
        _bind(entry, param, kind, tree)
        if not _calls_name(tree, path, param):
            continue
        entry["coupled"].add(kind)
        for sender in senders.get((path, function, param), ()):
            if sender != path and kind.startswith("library:"):
                facts[sender]["coupled"].add(kind)
            if not kind.startswith("library:"):
                facts[tree.helpers[kind][0].path]["elsewhere"].add(
                    tree.helpers[kind][1].name
                )
                facts[tree.helpers[kind][0].path]["coupled"].add(kind)
    for index in tree.indexes:
        called = {callee for _, callee, _ in index.calls}
        for local, target in index.imports.items():
            entry = tree.helpers.get(tree.canonical(target))
            if entry is None or entry[0] is index:
                continue
            defining, helper = entry
            facts[index.path]["helpers"].setdefault(local, helper)
            if helper.kind == "class":
                # calls of the instances built here: ``loss_scaler = ScaledStep()`` ...
                built = {
                    target_name
                    for (_, target_name), values in index.bindings.items()
                    if f"call:{local}" in values
                }
                if not built & called:
                    continue
            elif local not in called:
                continue
            facts[index.path]["coupled"].add(helper.key)
            facts[defining.path]["elsewhere"].add(helper.name)
            facts[defining.path]["coupled"].add(helper.key)
    readers = frozenset(n for index in tree.indexes for n in index.grad_readers)
    return {
        index.path: FileFacts(
            module=index.module,
            imports=tuple(sorted(index.imports.items())),
            helpers=tuple(sorted(facts[index.path]["helpers"].items())),
            library_params=tuple(sorted(facts[index.path]["library"].items())),
            uncertain=tuple(sorted(facts[index.path]["uncertain"].items())),
            called_elsewhere=frozenset(facts[index.path]["elsewhere"]),
            coupled=frozenset(facts[index.path]["coupled"]),
            grad_readers=readers,
        )
        for index in tree.indexes
    }


def _calls_name(tree: _Tree, path: str, name: str) -> bool:
    index = next(i for i in tree.indexes if i.path == path)
    return any(callee == name for _, callee, _ in index.calls)


def _bind(entry: dict, param: str, kind: str, tree: _Tree) -> None:
    if kind.startswith("library:"):
        entry["library"][param] = kind
    else:
        entry["helpers"][param] = tree.helpers[kind][1]


def settle_coupled(tasks: Sequence, outcomes: list, convert: Callable) -> list:
    """Convert again, with the key kept, the files that converted their part of a coupled key
    another file left as torch code, until no file is left with a part the others do not match."""
    by_display = {task.display: task for task in tasks}
    kept: dict[str, str] = {}
    for _ in range(4):
        left: dict[str, str] = {}
        for outcome in outcomes:
            facts = by_display[outcome.display].tree
            for key in facts.coupled if facts is not None else ():
                if key in kept:
                    continue
                if key not in outcome.coupled:
                    left.setdefault(
                        key, f"the calls in `{outcome.display}` are not converted"
                    )
                elif outcome.coupled[key] is not None:
                    left.setdefault(key, outcome.coupled[key])
        if not left:
            break
        kept.update(left)
        again = [
            outcome
            for outcome in outcomes
            if any(k in kept and r is None for k, r in outcome.coupled.items())
        ]
        redone = {}
        for outcome in again:
            task = by_display[outcome.display]
            facts = dataclasses.replace(task.tree, kept=tuple(sorted(kept.items())))
            redone[outcome.display] = convert(dataclasses.replace(task, tree=facts))
        outcomes = [redone.get(o.display, o) for o in outcomes]
    return outcomes
