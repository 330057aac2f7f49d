"""Sizes given with `*` to a factory MindSpore takes a tuple for: `torch.zeros(1, n, *size)` becomes
`ops.zeros((1, n, *size))`, and computes torch's tensor."""

from __future__ import annotations

import numpy as np
import pytest
from torch2ms.migrator.context import Options
from torch2ms.migrator.convert import convert_source

SOURCE = (
    "import torch\n\n"
    "def make(n, size, shape, device=None, dtype=None):\n"
    "    dd = {'device': device, 'dtype': dtype}\n"
    "    return torch.zeros(1, n, *size, **dd), torch.ones(*shape), torch.randn(2, *size).shape\n"
)


def test_star_sizes_are_packed() -> None:
    result = convert_source(SOURCE, "m.py", Options())
    assert "ops.zeros((1, n, *size))" in result.code
    assert "ops.ones((*shape,))" in result.code
    assert "import torch" not in result.code
    assert convert_source(result.code, "m.py", Options()).code == result.code


@pytest.mark.real
def test_star_sizes_compute_torchs_tensors(fw) -> None:
    namespace: dict = {}
    exec(compile(SOURCE, "original.py", "exec"), namespace)  # noqa: S102 - our snippet
    expected = namespace["make"](3, (2, 2), (4, 1), device="cpu")
    converted: dict = {}
    code = convert_source(SOURCE, "m.py", Options()).code
    exec(compile(code, "converted.py", "exec"), converted)  # noqa: S102 - its conversion
    got = converted["make"](3, (2, 2), (4, 1), device="cpu")
    for want, have in zip(expected[:2], got[:2]):
        assert str(have.dtype) == "Float32" and str(want.dtype) == "torch.float32"
        np.testing.assert_array_equal(have.asnumpy(), want.numpy())
    assert tuple(got[2]) == tuple(expected[2]) == (2, 2, 2)
