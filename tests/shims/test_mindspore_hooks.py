"""`Tensor.register_hook` of the mindspore facade, against MindSpore's PyNative behaviour."""

from __future__ import annotations

import numpy as np
import pytest
import torch2ms.shims.mindspore as shim_ms

X = np.array([1.0, -2.0, 0.5], np.float32)
W = np.array([[0.3, -0.2, 0.5], [0.1, 0.4, -0.6]], np.float32)


def scenario(ms) -> dict:
    """Hooks on an intermediate tensor and on a Parameter, and a removed hook."""
    nn = ms.nn
    out: dict = {"seen": []}

    def loss_fn(x):
        hidden = x * 3
        hidden.register_hook(lambda g: out["seen"].append(g.asnumpy().copy()))
        doubled = hidden * 2
        doubled.register_hook(lambda g: g * 0.5)
        return (doubled * doubled).sum()

    out["x_grad"] = ms.grad(loss_fn, grad_position=0)(ms.Tensor(X)).asnumpy()

    net = nn.Dense(3, 2, has_bias=False)
    net.weight.set_data(ms.Tensor(W))
    handle = net.weight.register_hook(lambda g: g * 0.1)
    grad_fn = ms.value_and_grad(lambda x: net(x).sum(), None, net.trainable_params())
    out["hooked"] = grad_fn(ms.Tensor(X[None]))[1][0].asnumpy()
    handle.remove()
    out["removed"] = grad_fn(ms.Tensor(X[None]))[1][0].asnumpy()
    return out


def test_hooks_see_and_replace_gradients() -> None:
    out = scenario(shim_ms)
    # loss = sum((6x)^2): d/d doubled = 2 * doubled, halved by the hook; d/d hidden = 2 * that.
    np.testing.assert_allclose(out["seen"][0], 2 * 0.5 * 2 * (6 * X), rtol=1e-6)
    np.testing.assert_allclose(out["x_grad"], 3 * out["seen"][0], rtol=1e-6)
    np.testing.assert_allclose(out["hooked"], 0.1 * np.tile(X, (2, 1)), rtol=1e-6)
    np.testing.assert_allclose(out["removed"], np.tile(X, (2, 1)), rtol=1e-6)


@pytest.mark.real
def test_hooks_match_real_mindspore() -> None:
    real_ms = pytest.importorskip("mindspore")
    shim, real = scenario(shim_ms), scenario(real_ms)
    assert len(shim["seen"]) == len(real["seen"])
    for key in ("x_grad", "hooked", "removed"):
        np.testing.assert_allclose(shim[key], real[key], rtol=1e-6, err_msg=key)
    np.testing.assert_allclose(shim["seen"][0], real["seen"][0], rtol=1e-6)
