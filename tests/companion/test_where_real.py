"""`torch.where` with the condition alone (the index tuple mixture-of-experts layers unpack),
`torch.inf` and `scatter_add` (no CPU kernel behind MindSpore's), converted and run on real
MindSpore against torch."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest
from torch2ms.migrator.context import Options
from torch2ms.migrator.convert import convert_source
from torch2ms.rules.companion import assemble

pytestmark = pytest.mark.real

SOURCE = """import torch


def route(mask, scores):
    rows, cols = torch.where(mask)
    picked = torch.where(mask, scores, -torch.inf)
    kept = torch.where(condition=mask, input=scores, other=0.0)
    counts = torch.zeros(3).scatter_add(0, cols, torch.ones(cols.shape[0]))
    totals = torch.zeros(2, 4)
    totals.scatter_add_(1, torch.stack([cols, cols]), torch.ones(2, 6))
    summed = torch.scatter_add(torch.ones(2, 3), 1, cols[:2].expand(2, 2), scores[:, :2])
    return rows, cols, picked, kept, counts, totals, summed
"""


def test_where_forms_give_torchs_values(fw, tmp_path) -> None:
    torch, ms = fw
    result = convert_source(SOURCE, "route.py", Options())
    assert "torch" not in result.code.replace("ms_aux", "")
    assert "ms_aux.where(mask)" in result.code
    assert "ms_aux.scatter_add(" in result.code
    (tmp_path / "ms_aux.py").write_text(assemble(sorted(result.companion)), "utf-8")
    (tmp_path / "route.py").write_text(result.code, "utf-8")
    # The converted module imports `ms_aux`: this tree's, not one another test left imported.
    saved = sys.modules.pop("ms_aux", None)
    sys.path.insert(0, str(tmp_path))
    try:
        spec = importlib.util.spec_from_file_location("route", tmp_path / "route.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("ms_aux", None)
        if saved is not None:
            sys.modules["ms_aux"] = saved
    mask = np.array([[True, False, True], [False, False, True]])
    scores = np.arange(6, dtype=np.float32).reshape(2, 3)
    namespace: dict = {}
    exec(SOURCE, namespace)
    expected = namespace["route"](torch.tensor(mask), torch.tensor(scores))
    got = module.route(ms.Tensor(mask), ms.Tensor(scores))
    for want, have in zip(expected, got):
        assert str(have.dtype).lower() == str(want.dtype).replace("torch.", "")
        np.testing.assert_array_equal(have.asnumpy(), want.numpy())
