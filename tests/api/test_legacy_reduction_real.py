"""torch's deprecated `size_average`/`reduce` folded into `reduction`, against torch itself.

Every combination of literal values gives the reduction torch's own loss computes, and the
converted call computes torch's value on MindSpore.
"""

from __future__ import annotations

import itertools
import sys
import warnings

import numpy as np
import pytest
from torch2ms.migrator.context import Options
from torch2ms.migrator.convert import convert_source
from torch2ms.rules.api.legacy_reduction import legacy_reduction
from torch2ms.rules.companion import assemble

pytestmark = pytest.mark.real

FLAGS = (None, True, False)


@pytest.mark.parametrize(("size_average", "reduce"), itertools.product(FLAGS, FLAGS))
def test_reduction_is_torchs(fw, size_average, reduce) -> None:
    torch, _ = fw
    loss = torch.nn.MSELoss(size_average=size_average, reduce=reduce, reduction="sum")
    want = loss.reduction if (size_average, reduce) != (None, None) else None
    assert legacy_reduction(size_average, reduce) == want


CALLS = [
    "nn.MSELoss(False, True)(a, b)",
    "nn.L1Loss(size_average=None, reduce=False, reduction='mean')(a, b)",
    "F.mse_loss(a, b, None, None, 'sum')",
    "F.smooth_l1_loss(a, b, size_average=False)",
    "F.kl_div(a.log_softmax(-1), b.softmax(-1), reduce=True, size_average=False)",
    "F.binary_cross_entropy(a.sigmoid(), b.sigmoid(), w, False, False)",
    "nn.BCELoss(w, reduce=True)(a.sigmoid(), b.sigmoid())",
]


@pytest.mark.parametrize("call", CALLS)
def test_converted_loss_computes_torchs_value(fw, tmp_path, monkeypatch, call) -> None:
    torch, ms = fw
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 2, 3)).astype(np.float32)
    w = rng.random(3).astype(np.float32)
    source = (
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n"
        f"def run(a, b, w):\n    return {call}\n"
    )
    result = convert_source(source, "case.py", Options())
    assert "torch" not in result.code, result.code
    (tmp_path / "ms_aux.py").write_text(assemble(sorted(result.companion)))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "ms_aux", raising=False)
    original: dict = {}
    converted: dict = {}
    exec(compile(source, "original", "exec"), original)  # noqa: S102 - our snippet
    exec(compile(result.code, "converted", "exec"), converted)  # noqa: S102
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch's deprecation notice
        want = original["run"](*(torch.tensor(v) for v in (a, b, w)))
    have = converted["run"](*(ms.Tensor(v) for v in (a, b, w)))
    np.testing.assert_allclose(have.asnumpy(), want.numpy(), rtol=1e-5, atol=1e-6)
