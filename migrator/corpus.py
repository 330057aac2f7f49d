"""Corpus pairs: ``<NNN_slug>/original.py``, ``expected.py`` (the golden conversion) and ``meta.json``.

``python -m torch2ms.migrator.corpus [--update] [--diff] [PATH]...`` lists the pairs whose golden file differs
from what the converter produces today; ``--update`` rewrites those golden files.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
from dataclasses import dataclass, field

from .context import Options

ORIGINAL = "original.py"
EXPECTED = "expected.py"
META = "meta.json"
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
    return os.path.isfile(os.path.join(folder, ORIGINAL))


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
    from .convert import convert_source

    return convert_source(
        read_text(pair.original), path=pair.original, options=pair.options
    )


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


if __name__ == "__main__":
    sys.exit(main())
