"""Integrity of the API tables and of the argument translation, without the frameworks."""

from __future__ import annotations

import ast
import keyword
import re

import pytest
from torch2ms.rules.api import ALL_MAPPINGS, BY_TORCH_NAME
from torch2ms.rules.api.samples import Array, build, rng_for
from torch2ms.rules.api.spec import (
    CHECKS,
    FORMS,
    KINDS,
    STATUSES,
    TARGETS,
    TRANSFORMS,
    ApiMapping,
    CallTranslation,
    Refusal,
    translate_call,
)
from torch2ms.rules.api.table_mint import MINT

DOTTED = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


def test_torch_names_are_unique() -> None:
    names = [m.torch for m in ALL_MAPPINGS]
    assert len(names) == len(set(names))
    # Besides its own name, a `torch.nn` class is reached by its `torch.nn.modules` names.
    canonical = {name for name, m in BY_TORCH_NAME.items() if name == m.torch}
    assert len(canonical) == len(ALL_MAPPINGS)
    for name, mapping in BY_TORCH_NAME.items():
        if name != mapping.torch:
            assert name.startswith("torch.nn.modules.")
            assert name.rsplit(".", 1)[1] == mapping.torch.rsplit(".", 1)[1]
    assert BY_TORCH_NAME["torch.nn.modules.loss.MSELoss"].torch == "torch.nn.MSELoss"
    assert BY_TORCH_NAME["torch.nn.modules.Dropout"].torch == "torch.nn.Dropout"


@pytest.mark.parametrize("mapping", ALL_MAPPINGS, ids=[m.torch for m in ALL_MAPPINGS])
def test_entry_is_well_formed(mapping: ApiMapping) -> None:
    assert DOTTED.match(mapping.torch) and mapping.torch.startswith("torch.")
    assert (
        mapping.kind in KINDS and mapping.status in STATUSES and mapping.check in CHECKS
    )
    assert mapping.form in FORMS
    assert set(mapping.targets) <= set(TARGETS)
    assert set(mapping.transform.values()) <= set(TRANSFORMS)
    if mapping.translatable and mapping.form == "constant":
        if not mapping.mindspore.startswith("mindspore."):
            ast.literal_eval(mapping.mindspore)
    elif mapping.translatable and mapping.form in ("decorator", "annotation"):
        assert mapping.mindspore == ""
    elif mapping.translatable:
        assert DOTTED.match(mapping.mindspore) and mapping.mindspore.startswith(
            "mindspore."
        )
        assert mapping.targets, "a translatable entry names the targets it is valid for"
        for name in (*mapping.rename.values(), *mapping.defaults):
            assert name.isidentifier() and not keyword.iskeyword(name)
        for source in mapping.defaults.values():
            if not source.startswith(("@", "mindspore.")):
                ast.literal_eval(source)
    else:
        assert mapping.note, "a report-only entry says why and what to write instead"
        assert not mapping.targets
    if "mindspore.mint." in mapping.mindspore:
        assert "cpu" not in mapping.targets
    assert sum(1 for p in mapping.params if p.startswith("*")) <= 1


def test_mint_alternatives_are_ascend_names() -> None:
    for torch_name, mint_name in MINT.items():
        assert DOTTED.match(torch_name) and torch_name.startswith("torch.")
        assert mint_name.startswith("mindspore.mint.")


def test_at_least_500_verified_mappings() -> None:
    verified = [m for m in ALL_MAPPINGS if m.translatable and "cpu" in m.targets]
    assert len(verified) >= 500
    assert sum(1 for m in ALL_MAPPINGS if not m.translatable) >= 50


def test_every_cpu_mapping_has_a_sample() -> None:
    for mapping in ALL_MAPPINGS:
        if (
            mapping.translatable
            and mapping.kind in ("function", "method")
            and mapping.form == "call"
        ):
            assert mapping.sample or not mapping.params, mapping.torch


def _values(mapping: ApiMapping, args: list, kwargs: dict):
    return translate_call(
        mapping,
        args,
        kwargs,
        literal=lambda v: (
            repr(v) if isinstance(v, (int, float, str, tuple, type(None))) else None
        ),
        transform=lambda name, v: 1 - v if name == "one_minus" else v,
        default=ast.literal_eval,
        pack=tuple,
    )


def test_renames_keep_a_positional_prefix() -> None:
    mapping = BY_TORCH_NAME["torch.nn.Linear"]
    call = _values(mapping, [3, 4, False], {})
    assert call == CallTranslation("mindspore.nn.Dense", [3, 4], {"has_bias": False})


def test_defaults_and_transforms() -> None:
    call = _values(BY_TORCH_NAME["torch.nn.BatchNorm2d"], [8], {"momentum": 0.1})
    assert isinstance(call, CallTranslation)
    assert call.args == [8] and call.kwargs["momentum"] == pytest.approx(0.9)
    conv = _values(BY_TORCH_NAME["torch.nn.Conv2d"], [3, 8, 3], {"padding": 1})
    assert conv.kwargs == {"padding": 1, "pad_mode": "pad", "has_bias": True}
    pool = _values(BY_TORCH_NAME["torch.nn.MaxPool2d"], [3], {})
    assert pool.kwargs["stride"] == 3


def test_unsafe_arguments_are_refused() -> None:
    assert isinstance(
        _values(BY_TORCH_NAME["torch.nn.functional.relu"], ["x"], {"inplace": True}),
        Refusal,
    )
    assert isinstance(
        _values(BY_TORCH_NAME["torch.add"], ["x", "y"], {"out": "z"}), Refusal
    )
    assert isinstance(
        _values(BY_TORCH_NAME["torch.nn.Conv2d"], [3, 8, 3], {"padding": "same"}),
        Refusal,
    )
    assert isinstance(
        _values(BY_TORCH_NAME["torch.zeros"], [2], {"requires_grad": True}), Refusal
    )
    assert isinstance(
        _values(BY_TORCH_NAME["torch.cuda.is_available"], [], {}), Refusal
    )
    kept = _values(BY_TORCH_NAME["torch.nn.functional.relu"], ["x"], {"inplace": False})
    assert kept == CallTranslation("mindspore.ops.relu", ["x"], {})


def test_varargs_pack_or_spread() -> None:
    assert _values(BY_TORCH_NAME["torch.zeros"], [2, 3], {}).args == [(2, 3)]
    assert _values(BY_TORCH_NAME["torch.zeros"], [(2, 3)], {}).args == [(2, 3)]
    assert _values(BY_TORCH_NAME["torch.meshgrid"], ["a", "b"], {}).args == ["a", "b"]


def test_samples_are_deterministic() -> None:
    first = build(("f32[2,3]", "i64[4]", 1.5), rng_for("x"))
    second = build(("f32[2,3]", "i64[4]", 1.5), rng_for("x"))
    assert isinstance(first[0], Array) and (first[0].values == second[0].values).all()
    assert first[1].values.dtype.name == "int64" and first[2] == 1.5
