"""Each pair's expected.py is exactly what the converter produces from its original.py.

A package pair (``original/`` and ``expected/`` trees) compares every file of its tree. After a rule
change, refresh the golden files of the pairs it changes with
``python -m torch2ms.migrator.corpus --update --diff corpus/<pair>`` and review the diff."""

from __future__ import annotations

import json
import os

import pytest
from corpus_support import conversion, pair, pair_names
from torch2ms.migrator.corpus import (
    BACKENDS,
    golden_difference,
    read_text,
    tree_goldens,
)

NAMES = pair_names()


@pytest.mark.parametrize("name", NAMES)
def test_expected_is_the_converter_output(name):
    current = pair(name)
    assert current.expected is not None, f"{name} has no expected.py"
    if current.tree is not None:
        # a package pair: every file of its tree
        differences = tree_goldens(current)
        assert not differences, f"{name}: {differences[0]}"
        return
    difference = golden_difference(read_text(current.expected), conversion(name).code)
    assert difference is None, f"{name}: {difference}"


@pytest.mark.parametrize("name", NAMES)
def test_meta_is_well_formed(name):
    current = pair(name)
    folder = os.path.dirname(current.tree or current.original)
    with open(os.path.join(folder, "meta.json"), encoding="utf-8") as handle:
        meta = json.load(handle)
    assert (
        isinstance(meta.get("rules"), list)
        and isinstance(meta.get("source"), str)
        and meta["source"]
    )
    assert set(meta.get("backends", BACKENDS)) <= set(BACKENDS)
    assert name[:3].isdigit() and name[3] == "_"
    compile(read_text(current.original), current.original, "exec")


def test_pair_numbers_are_unique():
    numbers = [name[:3] for name in NAMES]
    assert len(numbers) == len(set(numbers))
