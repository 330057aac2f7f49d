"""verify must catch wrong conversions: each deliberately broken conversion fails, its correct form passes.

The cases live in tests/verify_cases: ``<case>_original.py`` (PyTorch), ``<case>_converted.py`` (a
correct MindSpore conversion) and ``<case>_broken.py`` (the same with one classic mistake).
"""

from __future__ import annotations

import os

import pytest
from torch2ms.migrator.verify import verify_files

CASES_DIR = os.path.join(os.path.dirname(__file__), "verify_cases")
# case → the mistake its broken conversion makes
CASES = {
    "lr": "a changed learning rate",
    "aux": "has_aux dropped, so the gradients of all outputs are summed",
    "accum": "the loss / N of mean-reduction accumulation left out",
    "detach": "a missing stop_gradient",
    "bn": "BatchNorm momentum not inverted",
}


def _case(name: str, kind: str) -> str:
    return os.path.join(CASES_DIR, f"{name}_{kind}.py")


def _run(backend: str) -> dict[tuple[str, str], dict]:
    pairs = [
        (_case(name, "original"), _case(name, kind))
        for name in CASES
        for kind in ("converted", "broken")
    ]
    reports = verify_files(pairs, backend=backend)
    keys = [(name, kind) for name in CASES for kind in ("converted", "broken")]
    return dict(zip(keys, reports))


def _check(reports: dict[tuple[str, str], dict], names) -> None:
    for name in names:
        mistake = CASES[name]
        good, broken = reports[(name, "converted")], reports[(name, "broken")]
        assert good["status"] == "pass", (name, good)
        assert broken["status"] == "fail", (name, mistake, broken)
        first = broken["first_difference"]
        assert first["quantity"] and first["original"] != first["converted"], broken


@pytest.fixture(scope="module")
def shim_reports():
    return _run("shim")


@pytest.mark.parametrize("name", list(CASES))
def test_broken_conversion_fails_on_shims(shim_reports, name):
    _check(shim_reports, [name])


@pytest.mark.real
def test_broken_conversions_fail_on_real_frameworks():
    pytest.importorskip("torch")
    pytest.importorskip("mindspore")
    _check(_run("real"), list(CASES))
