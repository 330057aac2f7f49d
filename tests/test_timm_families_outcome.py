"""How `benchmarks/timm_families.py` names a model's outcome from the two sides' records."""

from __future__ import annotations

import importlib.util
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def families():
    sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
    path = os.path.join(ROOT, "benchmarks", "timm_families.py")
    spec = importlib.util.spec_from_file_location("timm_families", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("torch_side", "ms_side", "expected"),
    [
        ({"torch_error": "x"}, {}, "torch fails"),
        ({}, {"error": "x"}, "fails"),
        ({}, {"unloaded": 2, "match": True}, "unloaded"),
        ({}, {"match": True}, "match"),
        # Farther from the float64 logits than torch's float32 run, but not twice as far.
        ({"torch_fp64_diff": 6e-4}, {"match": False, "fp64_diff": 7e-4}, "rounding"),
        ({"torch_fp64_diff": 6e-4}, {"match": False, "fp64_diff": 2e-3}, "differs"),
        # Without a float64 run there is nothing to tell rounding from a difference.
        ({}, {"match": False, "fp64_diff": 1e-9}, "differs"),
    ],
)
def test_outcome(families, torch_side, ms_side, expected) -> None:
    assert families.outcome(torch_side, ms_side) == expected
