"""torch's `dim=None` ("every dimension") as MindSpore's reductions read it, on the real frameworks."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import convert_checked

pytestmark = pytest.mark.real

SOURCE = (
    "import torch\n\n"
    "a = torch.tensor([[0, 1, 2], [3, 0, 4]])\n"
    "r1 = a.count_nonzero(dim=None)\n"
    "r2 = torch.count_nonzero(a, None)\n"
    "r3 = torch.count_nonzero(input=a, dim=1)\n"
)


def test_count_nonzero_over_every_dimension(fw) -> None:
    result = convert_checked(SOURCE)
    assert "axis=()" in result.code
    assert not result.findings
    torch_scope: dict = {}
    exec(compile(SOURCE, "case.py", "exec"), torch_scope)  # noqa: S102 (the test data)
    ms_scope: dict = {}
    exec(compile(result.code, "case_ms.py", "exec"), ms_scope)  # noqa: S102 (the test data)
    for name in ("r1", "r2", "r3"):
        expected = torch_scope[name].numpy()
        got = ms_scope[name].asnumpy()
        assert got.dtype == expected.dtype, name
        np.testing.assert_array_equal(got, expected, err_msg=name)
