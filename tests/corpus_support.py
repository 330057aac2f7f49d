"""The corpus pairs and their conversions, computed once per test session."""

from __future__ import annotations

import functools
import os

from torch2ms.migrator.corpus import Pair, convert_pair, discover

CORPUS_DIR = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "corpus"
)


@functools.cache
def pairs() -> tuple[Pair, ...]:
    return tuple(discover(CORPUS_DIR))


def pair_names() -> list[str]:
    return [pair.name for pair in pairs()]


def pair(name: str) -> Pair:
    return next(p for p in pairs() if p.name == name)


@functools.cache
def conversion(name: str):
    return convert_pair(pair(name))


def exercised(name: str) -> set[str]:
    """Rule ids the converter applied or reported on the pair's original."""
    result = conversion(name)
    return set(result.rules_applied) | {finding.rule for finding in result.findings}
