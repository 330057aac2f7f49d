"""`x.bernoulli(...)` and `x.bernoulli_(p)` as converted code runs them, against torch: MindSpore
runs its own Tensor.bernoulli/bernoulli_ on Ascend only, so the companion draws them. Where the
probabilities are 0 or 1 the draws are certain and equal torch's; elsewhere the frequency of ones
matches."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from torch2ms.migrator.context import Options
from torch2ms.migrator.convert import convert_source
from torch2ms.rules.companion import assemble

pytestmark = pytest.mark.real

SOURCE = """\
import torch
torch.manual_seed(0)
ones = torch.ones(3, 3).bernoulli()
zeros = torch.zeros(3, 3).bernoulli(generator=torch.Generator())
given = torch.rand(3, 3).bernoulli(1.0)
filled = torch.ones(2, 4, dtype=torch.float64)
filled.bernoulli_(0.0)
by_tensor = torch.zeros(2, 2).bernoulli_(torch.tensor([[1.0, 0.0], [0.0, 1.0]]))
many = torch.full((20000,), 0.3).bernoulli()
frequency = many.mean().item()
inplace_many = torch.zeros(20000)
inplace_many.bernoulli_(0.7)
inplace_frequency = inplace_many.mean().item()
"""


def test_bernoulli_draws_as_torch_does(fw, tmp_path, monkeypatch) -> None:
    result = convert_source(SOURCE, "case.py", Options())
    assert "import torch" not in result.code, result.code
    assert not result.findings
    (tmp_path / "ms_aux.py").write_text(assemble(sorted(result.companion)))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "ms_aux", raising=False)
    original: dict = {}
    converted: dict = {}
    exec(compile(SOURCE, "original", "exec"), original)  # noqa: S102 - our snippet
    exec(compile(result.code, "converted", "exec"), converted)  # noqa: S102
    for name in ("ones", "zeros", "given", "filled", "by_tensor"):
        want = original[name].numpy()
        have = converted[name].asnumpy()
        np.testing.assert_array_equal(have, want, err_msg=name)
        assert have.dtype == want.dtype, name
    for name in ("frequency", "inplace_frequency"):
        assert abs(converted[name] - original[name]) < 0.03, name
