"""The companion's AdaptiveLogSoftmaxWithLoss against real torch, with torch's weights copied
in: the forward's output and loss, `log_prob` and `predict`."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest
from torch2ms.rules.companion import assemble

pytestmark = pytest.mark.real


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    path = tmp_path_factory.mktemp("companion") / "ms_aux_adaptive.py"
    path.write_text(assemble(["AdaptiveLogSoftmaxWithLoss"]), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_adaptive", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["ms_aux_adaptive"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        ((5, 4, [2]), {}),
        ((5, 8, [1]), {"div_value": 3.8, "head_bias": True}),
        ((6, 12, [3, 7]), {"div_value": 2.0}),
    ],
)
def test_adaptive_log_softmax(fw, aux, args, kwargs) -> None:
    torch, ms = fw
    torch_layer = torch.nn.AdaptiveLogSoftmaxWithLoss(*args, **kwargs)
    layer = aux.AdaptiveLogSoftmaxWithLoss(*args, **kwargs)
    have = dict(layer.parameters_and_names())
    assert sorted(have) == sorted(n for n, _ in torch_layer.named_parameters())
    for name, value in torch_layer.named_parameters():
        have[name].set_data(ms.Tensor(value.detach().numpy()))
    rng = np.random.default_rng(0)
    x = rng.standard_normal((7, args[0])).astype(np.float32)
    target = rng.integers(0, args[1], 7)
    out, loss = torch_layer(torch.tensor(x), torch.tensor(target))
    result = layer(ms.Tensor(x), ms.Tensor(target))
    np.testing.assert_allclose(
        result.output.asnumpy(), out.detach().numpy(), rtol=1e-5, atol=1e-6
    )
    np.testing.assert_allclose(result.loss.asnumpy(), loss.detach().numpy(), rtol=1e-5)
    np.testing.assert_allclose(
        layer.log_prob(ms.Tensor(x)).asnumpy(),
        torch_layer.log_prob(torch.tensor(x)).detach().numpy(),
        rtol=1e-5,
        atol=1e-6,
    )
    np.testing.assert_array_equal(
        layer.predict(ms.Tensor(x)).asnumpy(),
        torch_layer.predict(torch.tensor(x)).numpy(),
    )
    single, _ = torch_layer(torch.tensor(x[0]), torch.tensor(target[0]))
    np.testing.assert_allclose(
        layer(ms.Tensor(x[0]), ms.Tensor(target[0])).output.asnumpy(),
        single.detach().numpy(),
        rtol=1e-5,
    )
