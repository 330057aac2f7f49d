"""The companion's weight normalisation (library/weight_norm.py) against real torch.

A torch layer and the MindSpore layer the conversion builds start from the same weight; each gets
weight normalisation in one of torch's two forms. The Parameters must carry torch's names and
shapes (a torch checkpoint's keys load as they are), the outputs must agree, gradients must reach
the magnitude and the direction, and removing the normalisation leaves torch's weight.
"""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest
from torch2ms.rules.companion import assemble
from torch2ms.rules.companion.table_weight_norm import ENTRIES

pytestmark = pytest.mark.real

RTOL, ATOL = 1e-5, 1e-5


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    path = tmp_path_factory.mktemp("companion") / "ms_aux_weight_norm.py"
    path.write_text(assemble(sorted(set(ENTRIES.values()))), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_weight_norm", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["ms_aux_weight_norm"] = module
    spec.loader.exec_module(module)
    return module


def _layers(fw, kind):
    """(torch layer, MindSpore layer) with the same weight and bias."""
    torch, ms = fw
    rng = np.random.default_rng(0)
    if kind == "conv1d":
        layer = torch.nn.Conv1d(4, 6, 3, padding=1)
        cell = ms.nn.Conv1d(4, 6, 3, pad_mode="pad", padding=1, has_bias=True)
        weight = rng.standard_normal((6, 4, 3)).astype(np.float32)
        cell.weight.set_data(ms.Tensor(weight.reshape(6, 4, 1, 3)))
        x = rng.standard_normal((2, 4, 7)).astype(np.float32)
    else:
        layer = torch.nn.Linear(5, 3)
        cell = ms.nn.Dense(5, 3)
        weight = rng.standard_normal((3, 5)).astype(np.float32)
        cell.weight.set_data(ms.Tensor(weight))
        x = rng.standard_normal((2, 5)).astype(np.float32)
    bias = rng.standard_normal(layer.bias.shape).astype(np.float32)
    with torch.no_grad():
        layer.weight.copy_(torch.tensor(weight))
        layer.bias.copy_(torch.tensor(bias))
    cell.bias.set_data(ms.Tensor(bias))
    return layer, cell, x


def _params(module, fw):
    torch, _ = fw
    if isinstance(module, torch.nn.Module):
        return {k: v.detach().numpy() for k, v in module.named_parameters()}
    return {k: v.asnumpy() for k, v in module.parameters_and_names()}


FORMS = [
    # (torch's apply, the companion entry, torch's remove, the companion entry, names)
    ("weight_norm", "weight_norm", ("weight_g", "weight_v")),
    (
        "parametrizations.weight_norm",
        "parametrized_weight_norm",
        ("parametrizations.weight.original0", "parametrizations.weight.original1"),
    ),
]


@pytest.mark.parametrize("kind", ["conv1d", "linear"])
@pytest.mark.parametrize("dim", [0, 1, -1, None])
@pytest.mark.parametrize("form", FORMS, ids=[f[0] for f in FORMS])
def test_weight_norm_forward_gradients_and_removal(aux, fw, kind, dim, form) -> None:
    torch, ms = fw
    path, entry, names = form
    apply = torch.nn.utils
    for part in path.split("."):
        apply = getattr(apply, part)
    layer, cell, x = _layers(fw, kind)
    apply(layer, name="weight", dim=dim)
    getattr(aux, entry)(cell, name="weight", dim=dim)
    want, have = _params(layer, fw), _params(cell, fw)
    assert sorted(have) == sorted(want) == sorted(("bias", *names))
    for name in names:
        assert have[name].shape == want[name].shape
        np.testing.assert_allclose(have[name], want[name], rtol=RTOL, atol=ATOL)

    # A changed magnitude changes the output, as torch recomputes the weight before each call.
    with torch.no_grad():
        dict(layer.named_parameters())[names[0]].mul_(2.0)
    param = dict(cell.parameters_and_names())[names[0]]
    param.set_data(param * 2.0)
    out = layer(torch.tensor(x))
    np.testing.assert_allclose(
        cell(ms.Tensor(x)).asnumpy(), out.detach().numpy(), rtol=RTOL, atol=ATOL
    )

    out.sum().backward()
    grads = ms.value_and_grad(lambda t: cell(t).sum(), None, cell.trainable_params())(
        ms.Tensor(x)
    )[1]
    torch_grads = dict(layer.named_parameters())
    for p, g in zip(cell.trainable_params(), grads):
        name = next(k for k, v in cell.parameters_and_names() if v is p)
        np.testing.assert_allclose(
            g.asnumpy(),
            torch_grads[name].grad.numpy(),
            rtol=1e-4,
            atol=1e-5,
            err_msg=name,
        )

    if entry == "weight_norm":
        torch.nn.utils.remove_weight_norm(layer)
        aux.remove_weight_norm(cell)
    else:
        torch.nn.utils.parametrize.remove_parametrizations(layer, "weight")
        assert aux.is_parametrized(cell, "weight")
        aux.remove_parametrizations(cell, "weight", leave_parametrized=True)
        assert not aux.is_parametrized(cell)
    have = _params(cell, fw)
    assert sorted(have) == ["bias", "weight"]
    np.testing.assert_allclose(
        have["weight"].reshape(layer.weight.shape),
        layer.weight.detach().numpy(),
        rtol=RTOL,
        atol=ATOL,
    )
    np.testing.assert_allclose(
        cell(ms.Tensor(x)).asnumpy(),
        layer(torch.tensor(x)).detach().numpy(),
        rtol=RTOL,
        atol=ATOL,
    )


VOCODER = """
import torch
from torch import nn


class Vocoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.pre = nn.Conv1d(4, 4, 4, padding=2, groups=2)
        self.post = nn.Conv1d(4, 2, 3, padding=1)

    def apply_weight_norm(self):
        weight_norm = nn.utils.weight_norm
        if hasattr(nn.utils.parametrizations, "weight_norm"):
            weight_norm = nn.utils.parametrizations.weight_norm
        weight_norm(self.pre, name="weight", dim=2)
        weight_norm(self.post)

    def remove_weight_norm(self):
        for m in (self.pre, self.post):
            if hasattr(m, "parametrizations") and "weight" in m.parametrizations:
                torch.nn.utils.parametrize.remove_parametrizations(
                    m, "weight", leave_parametrized=True
                )

    def forward(self, x):
        return self.post(torch.tanh(self.pre(x)))
"""


def test_converted_module_loads_torch_checkpoint_and_matches(fw, tmp_path) -> None:
    """A module written the way audio models apply weight normalisation, converted: it imports no
    torch, takes the torch model's state_dict by its own parameter names, and computes torch's
    outputs with the normalisation and after removing it."""
    from torch2ms.migrator.context import Options
    from torch2ms.migrator.convert import convert_source

    torch, ms = fw
    result = convert_source(VOCODER, "vocoder.py", Options())
    assert "import torch" not in result.code
    (tmp_path / "vocoder_ms.py").write_text(result.code, encoding="utf-8")
    (tmp_path / "ms_aux.py").write_text(
        assemble(sorted(result.companion)), encoding="utf-8"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        sys.modules.pop("ms_aux", None)
        spec = importlib.util.spec_from_file_location(
            "vocoder_ms", tmp_path / "vocoder_ms.py"
        )
        converted = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(converted)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("ms_aux", None)
    (tmp_path / "vocoder.py").write_text(VOCODER, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("vocoder", tmp_path / "vocoder.py")
    torch_side = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(torch_side)
    torch.manual_seed(0)
    original = torch_side.Vocoder()
    original.apply_weight_norm()
    cell = converted.Vocoder()
    cell.apply_weight_norm()
    state = {k: v.detach().numpy() for k, v in original.state_dict().items()}
    params = dict(cell.parameters_and_names())
    assert sorted(params) == sorted(state)
    for name, value in state.items():
        assert tuple(params[name].shape) == value.shape, name
        params[name].set_data(ms.Tensor(value))
    x = np.random.default_rng(0).standard_normal((2, 4, 9)).astype(np.float32)
    for _ in range(2):
        np.testing.assert_allclose(
            cell(ms.Tensor(x)).asnumpy(),
            original(torch.tensor(x)).detach().numpy(),
            rtol=RTOL,
            atol=ATOL,
        )
        original.remove_weight_norm()
        cell.remove_weight_norm()
    assert sorted(n for n, _ in cell.parameters_and_names()) == [
        "post.bias",
        "post.weight",
        "pre.bias",
        "pre.weight",
    ]
