"""Module methods a Cell lacks (get_submodule, get_parameter, register_parameter) and the
eye_/dirac_ initializers of plain tensors, as converted code runs them, against torch."""

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
import torch.nn as nn

w = torch.zeros(3, 5)
torch.nn.init.eye_(w)
k = torch.zeros(6, 4, 3, 3)
torch.nn.init.dirac_(k, 2)
k1 = torch.zeros(2, 3, 5)
torch.nn.init.dirac_(tensor=k1)
model = nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.ReLU(), nn.Linear(3, 1)))
inner = type(model.get_submodule("1.1")).__name__
bias = model.get_parameter("1.1.bias").shape
m = nn.Module()
m.register_parameter("alpha", nn.Parameter(torch.ones(2)))
names = [n for n, _ in m.named_parameters()]
try:
    model.get_submodule("1.5")
    missing = False
except AttributeError:
    missing = True
"""


def test_converted_module_methods_and_initializers(fw, tmp_path, monkeypatch) -> None:
    torch, ms = fw
    result = convert_source(SOURCE, "case.py", Options())
    assert "torch" not in result.code, result.code
    (tmp_path / "ms_aux.py").write_text(assemble(sorted(result.companion)))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "ms_aux", raising=False)
    original: dict = {}
    converted: dict = {}
    exec(compile(SOURCE, "original", "exec"), original)  # noqa: S102 - our snippet
    exec(compile(result.code, "converted", "exec"), converted)  # noqa: S102
    for name in ("w", "k", "k1"):
        np.testing.assert_array_equal(
            converted[name].asnumpy(), original[name].numpy(), err_msg=name
        )
    assert {"Linear": "Dense"}[original["inner"]] == converted["inner"]
    assert tuple(converted["bias"]) == tuple(original["bias"])
    assert converted["names"] == original["names"]
    assert converted["missing"] and original["missing"]
