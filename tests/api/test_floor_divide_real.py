"""`x.floor_divide(other)` becomes `ops.floor_divide(x, other)`: MindSpore 2.10's
`Tensor.floor_divide` with a Python number needs the FloorDivScalar kernel, which its CPU build
lacks. Run on the real frameworks, the conversion gives torch's values and dtypes."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import convert_checked

SOURCE = """import torch
a = torch.tensor([4.0, -3.0]).floor_divide(other=2.)
b = torch.tensor([4, -3]).floor_divide(2)
c = torch.tensor([4.0, -3.0]).floor_divide(torch.tensor([2.0, 2.0]))
d = torch.tensor([5, -3])
d.floor_divide_(2)
"""


@pytest.mark.real
def test_floor_divide_by_numbers_and_tensors(fw) -> None:
    _ = fw  # both frameworks importable (the snippets import them)
    expected: dict = {}
    exec(compile(SOURCE, "original.py", "exec"), expected)  # noqa: S102 - our snippet
    result = convert_checked(SOURCE)
    assert ".floor_divide(" not in result.code.replace("ops.floor_divide(", "")
    got: dict = {}
    exec(compile(result.code, "converted.py", "exec"), got)  # noqa: S102 - our snippet
    for name in "abcd":
        want, have = expected[name], got[name].asnumpy()
        assert str(want.dtype) == "torch." + str(have.dtype), name
        np.testing.assert_array_equal(have, want.numpy(), err_msg=name)
