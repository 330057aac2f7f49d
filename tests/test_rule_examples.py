"""Every rule's before/after examples, straight from its metadata."""

from __future__ import annotations

import pytest
from torch2ms.migrator.context import Options
from torch2ms.migrator.convert import convert_source
from torch2ms.migrator.rule import all_meta

CASES = [
    pytest.param(meta, example, id=f"{meta.id}-{i}")
    for meta in all_meta()
    for i, example in enumerate(meta.examples)
]


@pytest.mark.parametrize(("meta", "example"), CASES)
def test_example(meta, example) -> None:
    options = Options(**example.options)
    result = convert_source(example.before, "example.py", options)
    assert result.code == example.after
    messages = [f"{f.rule} {f.message}" for f in result.findings]
    for expected in example.findings:
        assert any(expected in m for m in messages), (expected, messages)
    if not example.findings:
        assert not [f for f in result.findings if f.severity == "error"], messages
    # Converting the output again changes nothing.
    assert convert_source(result.code, "example.py", options).code == result.code
    compile(result.code, "example.py", "exec")


def test_every_rule_has_docs() -> None:
    for meta in all_meta():
        assert meta.id.startswith("TM") and len(meta.id) == 5, meta.id
        assert meta.title and meta.what and meta.why and meta.use_instead, meta.id


def test_rules_with_handlers_have_examples() -> None:
    from torch2ms.migrator.rule import rule_classes

    for cls in rule_classes():
        assert cls.meta.examples, f"{cls.meta.id} has no before/after example"
