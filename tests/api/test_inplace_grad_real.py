"""An in-place update inside a module's forward, on real torch and MindSpore: where the updated
tensor is a fresh local one the converter rebinds it and the weight gradient is torch's; where
it is the function's input (an activation written `x.mul_(x.sigmoid())`) `ops.assign` stays,
its gradient is wrong, and TM963 says so at the line."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from torch2ms.migrator.context import Options
from torch2ms.migrator.convert import convert_source

SOURCE = """import torch
from torch import nn


def swish_(x):
    return x.mul_(x.sigmoid())


class Fresh(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.tensor([0.5, -1.0, 2.0]))

    def forward(self, x):
        y = x * self.w
        y.mul_(y.sigmoid())
        return y.sum()


class Shared(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.tensor([0.5, -1.0, 2.0]))

    def forward(self, x):
        return swish_(x * self.w).sum()
"""
X = np.array([1.0, 0.5, -0.25], np.float32)


def _converted(tmp_path):
    result = convert_source(SOURCE, "inplace_grad.py", Options())
    code = "\n".join(
        line for line in result.code.splitlines() if not line.lstrip().startswith("#")
    )
    assert "torch" not in code.replace("mindspore", ""), result.code
    assert convert_source(result.code, "inplace_grad.py", Options()).code == result.code
    path = tmp_path / "inplace_grad_converted.py"
    path.write_text(result.code, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("inplace_grad_converted", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return result, module


def _torch_grad(torch, cls) -> np.ndarray:
    scope: dict = {}
    exec(compile(SOURCE, "original.py", "exec"), scope)  # noqa: S102 - our snippet
    net = scope[cls]()
    net(torch.tensor(X)).backward()
    return net.w.grad.numpy()


def _ms_grad(ms, module, cls) -> np.ndarray:
    net = getattr(module, cls)()
    grads = ms.grad(net, grad_position=None, weights=net.trainable_params())(
        ms.Tensor(X)
    )
    return grads[0].asnumpy()


@pytest.mark.real
def test_fresh_update_is_rebound_and_its_gradient_is_torchs(fw, tmp_path) -> None:
    torch, ms = fw
    result, module = _converted(tmp_path)
    assert "(y := y.mul(y.sigmoid()))" in result.code, result.code
    np.testing.assert_allclose(
        _ms_grad(ms, module, "Fresh"), _torch_grad(torch, "Fresh"), rtol=1e-5
    )


@pytest.mark.real
def test_update_of_an_input_is_reported_where_its_gradient_is_wrong(
    fw, tmp_path
) -> None:
    torch, ms = fw
    result, module = _converted(tmp_path)
    line = SOURCE.splitlines().index("    return x.mul_(x.sigmoid())") + 1
    assert [f.line for f in result.findings if f.rule == "TM963"] == [line]
    assert "ops.assign(x, x.mul(x.sigmoid()))" in result.code
    # the finding is a real risk: Assign's value gets no gradient on MindSpore
    want, have = _torch_grad(torch, "Shared"), _ms_grad(ms, module, "Shared")
    assert not np.allclose(have, want, rtol=1e-3), (have, want)
