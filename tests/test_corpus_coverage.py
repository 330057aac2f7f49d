"""Every rule that ``torch2ms rules`` lists is exercised by a corpus pair, and pairs list honestly.

A rule counts as exercised by a pair when the converter applies it (``Result.rules_applied``) or
reports it (a finding) on the pair's original.py."""

from __future__ import annotations

import pytest
from corpus_support import exercised, pair, pair_names
from torch2ms.migrator.rule import all_meta

# Ids for inputs that cannot be a runnable pair: a file that does not parse, a rule that crashed.
NOT_RUNNABLE = {
    "TM000": "input that does not parse",
    "TM999": "internal error of a rule",
}
MINIMUM_PAIRS = 60


def test_every_listed_rule_is_exercised_by_a_pair():
    covered = set().union(*(exercised(name) for name in pair_names()))
    listed = {meta.id for meta in all_meta()} - set(NOT_RUNNABLE)
    missing = sorted(listed - covered)
    assert not missing, f"rules no corpus pair exercises: {', '.join(missing)}"


@pytest.mark.parametrize("name", pair_names())
def test_rules_listed_in_meta_are_exercised(name):
    claimed = set(pair(name).meta.get("rules", []))
    assert claimed <= exercised(name), (
        f"{name} lists rules the converter neither applies nor reports: {sorted(claimed - exercised(name))}"
    )


def test_corpus_size():
    assert len(pair_names()) >= MINIMUM_PAIRS
