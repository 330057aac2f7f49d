"""Shared pytest configuration.

Tests that need the real frameworks are marked ``real``. Where ``TORCH2MS_REQUIRE_REAL=1`` (CI sets
it), a missing framework is a failure instead of a skip, so those tests cannot vanish silently.
"""

from __future__ import annotations

import os

import pytest

REQUIRE_REAL = os.environ.get("TORCH2MS_REQUIRE_REAL") == "1"


def pytest_configure(config: pytest.Config) -> None:
    # Before any test imports torchvision: see tests/torchvision_guard.py for what it patches.
    from torchvision_guard import guard

    guard()
    config.addinivalue_line(
        "markers", "real: needs the real torch and/or MindSpore installed"
    )
    config.addinivalue_line("markers", "slow: takes more than a few seconds")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    if REQUIRE_REAL and report.skipped and item.get_closest_marker("real") is not None:
        report.outcome = "failed"
        report.longrepr = f"real-framework test skipped while TORCH2MS_REQUIRE_REAL=1: {report.longrepr}"


def require_module(name: str):
    """Import a real framework for a test; skip locally when absent (a failure in CI)."""
    return pytest.importorskip(name)


def convert_checked(source: str, **options):
    """``convert_source`` on a snippet, checking that the output compiles and that converting it
    again changes nothing."""
    from torch2ms.migrator.context import Options
    from torch2ms.migrator.convert import convert_source

    result = convert_source(source, "case.py", Options(**options))
    again = convert_source(result.code, "case.py", Options(**options))
    assert again.code == result.code, "not idempotent"
    compile(result.code, "case.py", "exec")
    return result


@pytest.fixture(scope="module")
def fw():
    """Real torch and MindSpore (PyNative, CPU), for tests marked ``real``."""
    torch = require_module("torch")
    ms = require_module("mindspore")
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    return torch, ms
