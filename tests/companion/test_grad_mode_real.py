"""The companion's grad mode (rules/companion/library/grad_mode.py) against torch's: the flag
`is_grad_enabled` reads after `set_grad_enabled` as a statement, a block and a decorator."""

from __future__ import annotations

import importlib.util

import pytest
from torch2ms.rules.companion import assemble

pytestmark = pytest.mark.real


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    path = tmp_path_factory.mktemp("aux") / "ms_aux_grad_mode.py"
    path.write_text(
        assemble(["set_grad_enabled", "is_grad_enabled", "no_grad", "enable_grad"]),
        encoding="utf-8",
    )
    spec = importlib.util.spec_from_file_location("ms_aux_grad_mode", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _trace(api) -> list:
    seen = [api.is_grad_enabled()]
    api.set_grad_enabled(False)
    seen.append(api.is_grad_enabled())
    with api.set_grad_enabled(True):
        seen.append(api.is_grad_enabled())
        with api.set_grad_enabled(mode=False):
            seen.append(api.is_grad_enabled())
        seen.append(api.is_grad_enabled())
    seen.append(api.is_grad_enabled())
    api.set_grad_enabled(True)

    @api.set_grad_enabled(False)
    def inside():
        return api.is_grad_enabled()

    seen += [api.is_grad_enabled(), inside(), api.is_grad_enabled()]
    api.set_grad_enabled(len(seen) < 0)
    seen.append(api.is_grad_enabled())
    api.set_grad_enabled(True)
    return seen


def test_the_flag_follows_torchs_mode(fw, aux) -> None:
    torch, _ = fw
    assert _trace(aux) == _trace(torch)


def _values(api) -> list:
    """`no_grad()` and `enable_grad()` built as values: the mode changes on entering, not when
    built, and is restored on leaving; as decorators, around each call."""
    block = api.no_grad()
    seen = [api.is_grad_enabled()]
    with block:
        seen.append(api.is_grad_enabled())
        with api.enable_grad():
            seen.append(api.is_grad_enabled())
        seen.append(api.is_grad_enabled())
    seen.append(api.is_grad_enabled())

    @api.no_grad()
    def inside():
        return api.is_grad_enabled()

    seen += [inside(), api.is_grad_enabled()]
    return seen


def test_blocks_built_as_values_follow_torchs_mode(fw, aux) -> None:
    torch, _ = fw
    assert _values(aux) == _values(torch)
