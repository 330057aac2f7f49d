"""`torch2ms weights` on a model with recurrent layers: every parameter of the converted model
loads (MindSpore's LSTM/GRU/RNN name theirs as torch does: `weight_ih_l0`, `bias_hh_l1_reverse`),
and the converted model gives torch's outputs."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import convert_checked, require_module
from torch2ms.cli.main import main

pytestmark = pytest.mark.real

TORCH_MODEL = """
import torch
import torch.nn as nn


class Tagger(nn.Module):
    def __init__(self, rnn_layer=nn.GRU):
        super().__init__()
        self.encoder = nn.LSTM(6, 5, num_layers=2, batch_first=True, bidirectional=True)
        self.decoder = rnn_layer(10, 4, bias=False)
        self.steps = nn.ModuleList([nn.RNN(4, 3, nonlinearity="relu"), nn.LSTMCell(3, 3)])
        self.head = nn.Linear(3, 2)

    def forward(self, x):
        h, _ = self.encoder(x)
        h, _ = self.decoder(h.transpose(0, 1))
        h, _ = self.steps[0](h)
        state = self.steps[1](h[-1], (h[0], h[1]))
        return self.head(state[0])
"""


@pytest.mark.parametrize("with_source", [True, False])
def test_recurrent_checkpoint_loads_every_parameter(tmp_path, with_source) -> None:
    torch = require_module("torch")
    mindspore = require_module("mindspore")
    torch.manual_seed(0)
    scope: dict = {}
    exec(compile(TORCH_MODEL, "tagger.py", "exec"), scope)  # noqa: S102 (the model under test)
    net = scope["Tagger"]().eval()
    x = np.random.default_rng(0).standard_normal((3, 7, 6)).astype(np.float32)
    expected = net(torch.tensor(x)).detach().numpy()
    source = tmp_path / "tagger.pth"
    torch.save(net.state_dict(), source)
    (tmp_path / "tagger.py").write_text(TORCH_MODEL)
    target = tmp_path / "tagger.ckpt"
    args = ["weights", str(source), str(target), "--format", "json"]
    if with_source:
        args += ["--model-source", str(tmp_path / "tagger.py")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output

    converted = convert_checked(TORCH_MODEL)
    assert "import torch" not in converted.code
    from torch2ms.rules.companion import assemble

    (tmp_path / "ms_aux.py").write_text(assemble(sorted(converted.companion)))
    import sys

    sys.path.insert(0, str(tmp_path))
    sys.modules.pop("ms_aux", None)
    try:
        ms_scope: dict = {}
        exec(compile(converted.code, "tagger_ms.py", "exec"), ms_scope)  # noqa: S102 (the conversion under test)
    finally:
        sys.path.remove(str(tmp_path))
    ms_net = ms_scope["Tagger"]()
    loaded = mindspore.load_checkpoint(str(target))
    assert sorted(loaded) == sorted(net.state_dict())
    not_loaded, unused = mindspore.load_param_into_net(ms_net, loaded)
    assert not_loaded == [] and unused == []
    ms_net.set_train(False)
    got = ms_net(mindspore.Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
