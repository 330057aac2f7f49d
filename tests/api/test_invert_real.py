"""TM420: `~x` on the real frameworks: torch's bitwise not on integer tensors, logical not on bool
ones, as the converted program computes them."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest
from conftest import convert_checked
from torch2ms.rules.companion import assemble


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("y = ~x", "y = ms_aux.invert(x)"),
        ("y = (~x) + 1", "y = (ms_aux.invert(x)) + 1"),
        ("y = ~(x > 1)", "y = ~(x > 1)"),
        ("y = ~torch.isnan(x)", "y = ~ops.isnan(x)"),
        ("y = ~x.bool()", "y = ~x.bool()"),
        ("y = ~3", "y = ~3"),
    ],
)
def test_invert_is_kept_only_where_it_means_the_same(before: str, after: str) -> None:
    result = convert_checked(f"import torch\n\ndef f(x):\n    {before}\n    return y\n")
    assert f"    {after}\n" in result.code


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    path = tmp_path_factory.mktemp("aux") / "ms_aux_invert.py"
    path.write_text(assemble(["invert"]), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_invert", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.real
@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "bool"])
def test_invert_computes_torchs_values(dtype: str, fw, aux) -> None:
    torch, ms = fw
    values = [True, False, True] if dtype == "bool" else [0, 5, 127]
    array = np.array(values, dtype=dtype)
    expected = (~torch.tensor(array)).numpy()
    got = aux.invert(ms.Tensor(array)).asnumpy()
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)
    assert aux.invert(5) == ~5
