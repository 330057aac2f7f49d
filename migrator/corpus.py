"""Corpus pairs: ``<NNN_slug>/original.py``, ``expected.py`` (the golden conversion) and ``meta.json``.

A *package pair* holds two trees instead, ``original/`` and ``expected/``, each with a ``main.py``
that runs the pair and the modules it imports; the whole ``original/`` tree is converted as
``torch2ms convert`` converts a tree, and each file must equal its golden file in ``expected/``.

``python -m torch2ms.migrator.corpus [--update] [--diff] [PATH]...`` lists the pairs whose golden file differs
from what the converter produces today; ``--update`` rewrites those golden files.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import json
import os
import sys
from dataclasses import dataclass, field

from .context import Options

ORIGINAL = "original.py"
EXPECTED = "expected.py"
META = "meta.json"
ORIGINAL_TREE = "original"
EXPECTED_TREE = "expected"
ENTRY = "main.py"
DEFAULT_RTOL = 1e-4
DEFAULT_ATOL = 1e-5
BACKENDS = ("shim", "real")


@dataclass
class Pair:
    name: str
    original: str  # path
    converted: str | None = (
        None  # path of the conversion to run; None: convert in memory
    )
    expected: str | None = None  # golden file, when the pair has one
    meta: dict = field(default_factory=dict)

    @property
    def rtol(self) -> float:
        return float(self.meta.get("rtol", DEFAULT_RTOL))

    @property
    def atol(self) -> float:
        return float(self.meta.get("atol", DEFAULT_ATOL))

    @property
    def backends(self) -> tuple[str, ...]:
        return tuple(self.meta.get("backends", BACKENDS))

    @property
    def options(self) -> Options:
        return Options(**self.meta.get("options", {}))

    @property
    def tree(self) -> str | None:
        """The ``original/`` folder of a package pair (None for a one-file pair)."""
        folder = os.path.dirname(self.original)
        return folder if os.path.basename(folder) == ORIGINAL_TREE else None

    @property
    def ignored_labels(self) -> frozenset[str]:
        return frozenset(self.meta.get("ignore_labels", ()))

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "original": self.original,
            "converted": self.converted,
            "expected": self.expected,
            "meta": self.meta,
        }

    @classmethod
    def from_dict(cls, data: dict) -> Pair:
        return cls(**data)


def read_meta(folder: str) -> dict:
    path = os.path.join(folder, META)
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def load_pair(folder: str) -> Pair:
    folder = os.path.abspath(folder)
    if not os.path.isfile(os.path.join(folder, ORIGINAL)):
        expected = os.path.join(folder, EXPECTED_TREE, ENTRY)
        expected = expected if os.path.exists(expected) else None
        return Pair(
            os.path.basename(folder),
            os.path.join(folder, ORIGINAL_TREE, ENTRY),
            expected,
            expected,
            read_meta(folder),
        )
    expected = os.path.join(folder, EXPECTED)
    expected = expected if os.path.exists(expected) else None
    return Pair(
        os.path.basename(folder),
        os.path.join(folder, ORIGINAL),
        expected,
        expected,
        read_meta(folder),
    )


def is_pair(folder: str) -> bool:
    return os.path.isfile(os.path.join(folder, ORIGINAL)) or os.path.isfile(
        os.path.join(folder, ORIGINAL_TREE, ENTRY)
    )


def discover(path: str) -> list[Pair]:
    """The pair in ``path``, or every pair folder directly under it, sorted by name."""
    if is_pair(path):
        return [load_pair(path)]
    folders = sorted(
        entry.path
        for entry in os.scandir(path)
        if entry.is_dir() and is_pair(entry.path)
    )
    return [load_pair(folder) for folder in folders]


def read_text(path: str) -> str:
    with open(path, encoding="utf-8", newline="") as handle:
        return handle.read()


def convert_pair(pair: Pair):
    """The conversion of the pair's original (of a package pair: its ``main.py``, with the rules
    and findings of every file of the tree)."""
    from .convert import convert_source

    if pair.tree is None:
        return convert_source(
            read_text(pair.original), path=pair.original, options=pair.options
        )
    results = convert_tree_pair(pair)
    main = results[ENTRY]
    return dataclasses.replace(
        main,
        findings=[f for r in results.values() for f in r.findings],
        rules_applied=tuple(
            sorted({i for r in results.values() for i in r.rules_applied})
        ),
        companion=frozenset().union(*(r.companion for r in results.values())),
    )


def convert_tree_pair(pair: Pair) -> dict:
    """Every file of a package pair's ``original/`` tree converted, by relative path."""
    from .tree_convert import convert_tree

    return convert_tree(pair.tree, pair.options)


def tree_goldens(pair: Pair) -> list[str]:
    """The differences between a package pair's ``expected/`` files and the converter's output."""
    folder = os.path.join(os.path.dirname(pair.tree), EXPECTED_TREE)
    found = []
    for name, result in sorted(convert_tree_pair(pair).items()):
        path = os.path.join(folder, *name.split("/"))
        if not os.path.exists(path):
            found.append(f"{name}: golden file missing")
            continue
        difference = golden_difference(read_text(path), result.code)
        if difference is not None:
            found.append(
                f"{name}: {difference.replace('expected.py', EXPECTED_TREE + '/' + name)}"
            )
    return found


def golden_difference(expected: str, produced: str) -> str | None:
    """None when equal, else the first differing line of expected.py against the converter's output."""
    if expected == produced:
        return None
    for index, (want, got) in enumerate(
        zip(expected.splitlines(), produced.splitlines()), start=1
    ):
        if want != got:
            return f"expected.py line {index}: {want.strip()!r}, converter: {got.strip()!r}"
    return f"expected.py has {expected.count(chr(10))} lines, the converter's output {produced.count(chr(10))}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="torch2ms.migrator.corpus")
    parser.add_argument(
        "--update", action="store_true", help="rewrite golden files that differ"
    )
    parser.add_argument("--diff", action="store_true", help="show the differences")
    parser.add_argument(
        "paths", nargs="*", default=["corpus"], help="corpus or pair folders"
    )
    args = parser.parse_args(argv)
    stale = 0
    for pair in [pair for path in args.paths for pair in discover(path)]:
        if pair.tree is not None:
            stale += _update_tree(pair, args.update)
            continue
        produced = convert_pair(pair).code
        current = read_text(pair.expected) if pair.expected else None
        if current == produced:
            continue
        stale += 1
        print(f"{pair.name}: golden file {'missing' if current is None else 'differs'}")
        if args.diff and current is not None:
            sys.stdout.writelines(
                difflib.unified_diff(
                    current.splitlines(True),
                    produced.splitlines(True),
                    "expected.py",
                    "converter",
                )
            )
        if args.update:
            with open(
                os.path.join(os.path.dirname(pair.original), EXPECTED),
                "w",
                encoding="utf-8",
                newline="",
            ) as handle:
                handle.write(produced)
    return 1 if stale and not args.update else 0


def _update_tree(pair: Pair, update: bool) -> int:
    differences = tree_goldens(pair)
    for line in differences:
        print(f"{pair.name}: {line}")
    if update and differences:
        folder = os.path.join(os.path.dirname(pair.tree), EXPECTED_TREE)
        for name, result in convert_tree_pair(pair).items():
            path = os.path.join(folder, *name.split("/"))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="") as handle:
                handle.write(result.code)
    return int(bool(differences))


if __name__ == "__main__":
    sys.exit(main())
