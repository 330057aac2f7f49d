"""A small MindSpore training script run by ``torch2ms run`` on the shim and on real MindSpore."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest
from conftest import require_module

TRAIN_SCRIPT = """
import numpy as np
import mindspore as ms
from mindspore import nn

ms.set_context(mode=ms.PYNATIVE_MODE)
rng = np.random.default_rng(0)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        # No bias before BatchNorm: its gradient is zero up to rounding, which Adam would amplify.
        self.fc1 = nn.Dense(6, 8, has_bias=False)
        self.bn = nn.BatchNorm1d(8)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(8, 3)

    def construct(self, x):
        return self.fc2(self.relu(self.bn(self.fc1(x))))


def run(make_optimizer, label):
    net = Net()
    for param in net.trainable_params():
        param.set_data(ms.Tensor(rng.standard_normal(param.shape).astype(np.float32) * 0.5))
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = make_optimizer(net.trainable_params())

    def forward_fn(data, target):
        logits = net(data)
        return loss_fn(logits, target), logits

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)
    net.set_train()
    for step in range(5):
        data = ms.Tensor(rng.standard_normal((16, 6)).astype(np.float32))
        target = ms.Tensor(rng.integers(0, 3, 16).astype(np.int32))
        (loss, _), grads = grad_fn(data, target)
        optimizer(grads)
        print(label, "loss", step, float(loss.asnumpy()))
    for param in net.get_parameters():
        print(label, "param", param.name, " ".join(repr(float(v)) for v in param.asnumpy().ravel()))


run(lambda params: nn.SGD(params, learning_rate=0.1, momentum=0.9), "sgd")
run(lambda params: nn.Adam(params, learning_rate=0.01), "adam")
"""


def run_script(tmp_path, backend: str) -> dict:
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent(TRAIN_SCRIPT), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "torch2ms.cli.run", "--backend", backend, str(script)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    values = {}
    for line in result.stdout.splitlines():
        label, kind, key, *numbers = line.split()
        values[(label, kind, key)] = np.array([float(n) for n in numbers])
    return values


def test_training_script_runs_on_the_shim(tmp_path):
    values = run_script(tmp_path, "shim")
    for label in ("sgd", "adam"):
        losses = [values[(label, "loss", str(step))][0] for step in range(5)]
        assert all(np.isfinite(losses))
    names = sorted(
        key for (label, kind, key) in values if label == "sgd" and kind == "param"
    )
    assert names == sorted(
        [
            "fc1.weight",
            "bn.gamma",
            "bn.beta",
            "bn.moving_mean",
            "bn.moving_variance",
            "fc2.weight",
            "fc2.bias",
        ]
    )


@pytest.mark.real
def test_training_matches_real_mindspore(tmp_path):
    require_module("mindspore")
    shim = run_script(tmp_path, "shim")
    real = run_script(tmp_path, "real")
    assert shim.keys() == real.keys()
    for key in real:
        np.testing.assert_allclose(
            shim[key], real[key], rtol=1e-4, atol=1e-5, err_msg=str(key)
        )
