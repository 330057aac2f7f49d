"""The whole corpus verifies: each conversion computes what its original computes."""

from __future__ import annotations

import pytest
from corpus_support import CORPUS_DIR
from torch2ms.migrator.verify import verify_path


def _failures(reports: list[dict]) -> list[str]:
    return [
        f"{r['name']}: {r['status']}: {r.get('reason', '')}"
        for r in reports
        if r["status"] != "pass"
    ]


@pytest.mark.slow
def test_corpus_verifies_on_the_shims():
    reports, _ = verify_path(CORPUS_DIR, backend="shim")
    assert reports
    assert not _failures(reports), "\n".join(_failures(reports))


@pytest.mark.real
@pytest.mark.slow
def test_corpus_verifies_on_the_real_frameworks():
    pytest.importorskip("torch")
    pytest.importorskip("mindspore")
    reports, _ = verify_path(CORPUS_DIR, backend="real")
    assert reports
    assert not _failures(reports), "\n".join(_failures(reports))
