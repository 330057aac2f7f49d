"""Comparing observations: parameter names through the TM3xx mapping, order, tolerances."""

from __future__ import annotations

import numpy as np
from torch2ms.migrator.compare import compare_arrays, compare_observations
from torch2ms.migrator.printed import parse_output
from torch2ms.shims import importer


def _observation(
    printed: str = "", modules: dict | None = None, tensors: dict | None = None
):
    meta = {
        "records": [r.to_dict() for r in parse_output(printed)],
        "modules": {},
        "tensors": [],
    }
    arrays = {}
    for module, params in (modules or {}).items():
        meta["modules"][module] = list(params)
        for name, value in params.items():
            arrays[f"module/{module}/{name}"] = np.asarray(value, dtype=np.float32)
    for name, value in (tensors or {}).items():
        meta["tensors"].append(name)
        arrays[f"tensor/{name}"] = np.asarray(value)
    return meta, arrays


def test_equal_observations_compare_every_quantity():
    side = _observation(
        "loss 1.5\nloss 1.25\n", {"model": {"fc.weight": [[1.0, 2.0]]}}, {"x": [1, 2]}
    )
    result = compare_observations(side, side, 1e-4, 1e-5)
    assert result.compared == 4 and result.first is None


def test_first_difference_is_the_earliest_printed_line():
    a = _observation("loss 1.0\nacc 0.5\n", {"model": {"w": [1.0]}})
    b = _observation("loss 1.0\nacc 0.6\n", {"model": {"w": [2.0]}})
    result = compare_observations(a, b, 1e-4, 1e-5)
    assert [d.quantity for d in result.differences] == [
        "printed 'acc' (output line 2)",
        "parameter model.w",
    ]
    assert result.first.original == 0.5 and result.first.converted == 0.6


def test_parameters_match_by_name_then_in_order():
    a = _observation(
        modules={
            "net": {"fc.weight": [1.0], "fc.bias": [2.0], "conv.weight": [3.0, 4.0]}
        }
    )
    b = _observation(
        modules={
            "net": {
                "conv.weight": [3.0, 4.0],
                "dense.weight": [1.0],
                "dense.bias": [2.0],
            }
        }
    )
    result = compare_observations(a, b, 1e-4, 1e-5)
    assert result.compared == 3 and result.first is None


def test_a_parameter_the_conversion_lacks_is_a_difference():
    a = _observation(modules={"net": {"fc.weight": [1.0], "fc.bias": [2.0]}})
    b = _observation(modules={"net": {"fc.weight": [1.0]}})
    result = compare_observations(a, b, 1e-4, 1e-5)
    assert result.first.quantity == "parameter net.fc.bias"


def test_ignored_labels_and_unmatched_names_are_not_compared():
    a = _observation("elapsed 3.2\nloss 1\n", tensors={"only_in_original": [1.0]})
    b = _observation("elapsed 9.9\nloss 1\n")
    result = compare_observations(a, b, 1e-4, 1e-5, frozenset({"elapsed"}))
    assert result.compared == 1 and result.first is None


def test_compare_arrays():
    assert (
        compare_arrays(np.array([1.0, 2.0]), np.array([1.00001, 2.0]), 1e-4, 1e-5)
        is None
    )
    assert "flat index 1" in compare_arrays(
        np.array([1.0, 2.0]), np.array([1.0, 2.1]), 1e-4, 1e-5
    )
    assert compare_arrays(np.array([[1.0]]), np.array(1.0), 1e-4, 1e-5) is None
    assert (
        compare_arrays(np.zeros((2, 3)), np.zeros((3, 2)), 1e-4, 1e-5)
        == "shape (2, 3) vs (3, 2)"
    )
    assert compare_arrays(np.array([np.nan]), np.array([np.nan]), 1e-4, 1e-5) is None


def test_torch_state_uses_mindspore_parameter_names():
    from torch2ms.migrator.observe import torch_state

    with importer.activate("shim"):
        import torch

        model = torch.nn.Sequential(
            torch.nn.Embedding(4, 2),
            torch.nn.LayerNorm(2),
            torch.nn.BatchNorm1d(2),
            torch.nn.Linear(2, 1),
        )
        names = list(torch_state(model))
    assert names == [
        "0.embedding_table",
        "1.gamma",
        "1.beta",
        "2.gamma",
        "2.beta",
        "2.moving_mean",
        "2.moving_variance",
        "3.weight",
        "3.bias",
    ]
