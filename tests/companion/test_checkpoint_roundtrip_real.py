"""torch.save then torch.load of a path, as converted code runs them, against torch: the file
the program names is the one written and read, a state_dict keeps torch's keys, `strict` keeps
torch's meaning, and tensors and dicts of tensors come back as they were saved."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
from torch2ms.migrator.context import Options
from torch2ms.migrator.convert import convert_source
from torch2ms.rules.companion import assemble

pytestmark = pytest.mark.real

SOURCE = """\
import os
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.bn = nn.BatchNorm1d(2)

    def forward(self, x):
        return self.bn(self.fc(x))

class Empty(nn.Module):
    def forward(self, x):
        return x

torch.manual_seed(0)
x = torch.tensor([[1.0, -2.0, 0.5], [0.0, 3.0, -1.0]])
model = Net()
nn.init.constant_(model.fc.weight, 0.5)
nn.init.constant_(model.fc.bias, -0.25)
nn.init.constant_(model.bn.weight, 2.0)
model.bn.running_mean.fill_(0.25)
model.eval()
PATH = 'net.pt'
torch.save(model.state_dict(), PATH)
written = sorted(os.listdir('.'))
keys = list(torch.load(PATH).keys())
fresh = Net()
fresh.eval()
fresh.load_state_dict(torch.load(PATH), True)
restored = fresh(x)
other = Net()
other.eval()
other.load_state_dict(state_dict=torch.load('net.pt'), strict=True)
restored_kw = other(x)
partial = Net()
incompatible = partial.load_state_dict({'fc.weight': torch.ones(2, 3)}, strict=False)
missing = sorted(incompatible.missing_keys)
try:
    Net().load_state_dict({'fc.weight': torch.ones(2, 3)})
    strict_raises = False
except RuntimeError:
    strict_raises = True
empty = Empty()
torch.save(empty.state_dict(), 'empty.pt')
empty.load_state_dict(torch.load('empty.pt'))
echo = empty(x)
torch.save(x * 2, 'tensor.pt')
tensor = torch.load('tensor.pt')
torch.save({'a': x, 'b': [x + 1, 3]}, 'bundle.pth')
bundle = torch.load('bundle.pth')
bundle_a = bundle['a']
bundle_b0 = bundle['b'][0]
bundle_b1 = bundle['b'][1]
torch.save(model.state_dict(), 'model.ckpt')
ckpt = Net()
ckpt.eval()
ckpt.load_state_dict(torch.load('model.ckpt'))
restored_ckpt = ckpt(x)
after = sorted(os.listdir('.'))
"""

TENSORS = ("restored", "restored_kw", "echo", "tensor", "bundle_a", "bundle_b0")
VALUES = (
    "written",
    "keys",
    "missing",
    "strict_raises",
    "bundle_b1",
    "after",
)


EXTRA_SOURCE = """\
import torch
import torch.nn as nn

class Counted(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.steps = 0

    def get_extra_state(self):
        return {'steps': self.steps}

    def set_extra_state(self, state):
        self.steps = state['steps']

counted = Counted()
counted.steps = 5
torch.save(counted.state_dict(), 'counted.pt')
counted_keys = list(counted.state_dict().keys())
back = Counted()
back.load_state_dict(torch.load('counted.pt'))
steps = back.steps
"""


def _run_both(source, tmp_path, monkeypatch):
    """The snippet on torch and its conversion on MindSpore, each in its own folder."""
    result = convert_source(source, "case.py", Options())
    assert "import torch" not in result.code, result.code
    (tmp_path / "ms_aux.py").write_text(assemble(sorted(result.companion)))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "ms_aux", raising=False)
    runs = {}
    for side, code in (("original", source), ("converted", result.code)):
        folder = tmp_path / side
        folder.mkdir()
        monkeypatch.chdir(folder)
        runs[side] = {}
        exec(compile(code, side, "exec"), runs[side])  # noqa: S102 - our snippet
    return runs["original"], runs["converted"], result.code


def test_save_then_load_round_trips_as_torch_does(fw, tmp_path, monkeypatch) -> None:
    original, converted, code = _run_both(SOURCE, tmp_path, monkeypatch)
    assert "mindspore.save_checkpoint(model, 'model.ckpt')" in code
    for name in TENSORS:
        np.testing.assert_allclose(
            converted[name].asnumpy(),
            original[name].detach().numpy(),
            rtol=1e-6,
            err_msg=name,
        )
    np.testing.assert_allclose(
        converted["restored_ckpt"].asnumpy(),
        original["restored_ckpt"].detach().numpy(),
        rtol=1e-6,
    )
    for name in VALUES:
        expected = original[name]
        if name == "keys":  # BatchNorm's step counter has no MindSpore counterpart
            expected = [k for k in expected if not k.endswith("num_batches_tracked")]
        assert converted[name] == expected, name
    assert os.path.exists(tmp_path / "converted" / "net.pt")


def test_a_modules_extra_state_is_saved_and_restored(fw, tmp_path, monkeypatch) -> None:
    """torch keeps what `get_extra_state()` returns under `_extra_state` and hands it to
    `set_extra_state()` on loading; so do the converted calls."""
    original, converted, _ = _run_both(EXTRA_SOURCE, tmp_path, monkeypatch)
    assert converted["counted_keys"] == original["counted_keys"]
    assert "_extra_state" in converted["counted_keys"]
    assert converted["steps"] == original["steps"] == 5
