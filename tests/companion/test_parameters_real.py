"""The parameter-setting entries of the companion module (library/parameters.py) against torch."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest
from torch2ms.rules.companion import assemble
from torch2ms.rules.companion.table_parameters import ENTRIES

pytestmark = pytest.mark.real
RTOL, ATOL = 1e-5, 1e-5


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    names = sorted(set(ENTRIES.values()) | {"Conv2d", "BatchNorm2d", "Conv1d"})
    path = tmp_path_factory.mktemp("aux") / "ms_aux_parameters.py"
    path.write_text(assemble(names), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_parameters", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _torch_pair(torch, dims: int, bias: bool, groups: int):
    torch.manual_seed(0)
    conv_class = torch.nn.Conv2d if dims == 2 else torch.nn.Conv1d
    norm_class = torch.nn.BatchNorm2d if dims == 2 else torch.nn.BatchNorm1d
    conv = conv_class(4, 6, 3, padding=1, groups=groups, bias=bias)
    bn = norm_class(6, eps=1e-3)
    with torch.no_grad():
        bn.weight.uniform_(0.5, 1.5)
        bn.bias.uniform_(-1, 1)
        bn.running_mean.uniform_(-1, 1)
        bn.running_var.uniform_(0.5, 2)
    return conv.eval(), bn.eval()


def _copy(ms, conv, bn, ms_conv, ms_bn) -> None:
    weight = conv.weight.detach().numpy()
    ms_conv.weight.set_data(ms.Tensor(weight.reshape(ms_conv.weight.shape)))
    if conv.bias is not None:
        ms_conv.bias.set_data(ms.Tensor(conv.bias.detach().numpy()))
    for torch_name, ms_name in (
        ("weight", "gamma"),
        ("bias", "beta"),
        ("running_mean", "moving_mean"),
        ("running_var", "moving_variance"),
    ):
        getattr(ms_bn, ms_name).set_data(
            ms.Tensor(getattr(bn, torch_name).detach().numpy())
        )


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("groups", [1, 2])
@pytest.mark.parametrize("layers", ["idiom", "companion"])
def test_fuse_conv_bn_eval_matches_torch(aux, fw, bias, groups, layers) -> None:
    torch, ms = fw
    conv, bn = _torch_pair(torch, 2, bias, groups)
    if layers == "idiom":
        ms_conv = ms.nn.Conv2d(
            4, 6, 3, pad_mode="pad", padding=1, group=groups, has_bias=bias
        )
        ms_bn = ms.nn.BatchNorm2d(6, eps=1e-3)
    else:
        ms_conv = aux.Conv2d(4, 6, 3, padding=1, groups=groups, bias=bias)
        ms_bn = aux.BatchNorm2d(6, eps=1e-3)
    _copy(ms, conv, bn, ms_conv, ms_bn)
    ms_conv.set_train(False)
    ms_bn.set_train(False)
    fused = torch.nn.utils.fusion.fuse_conv_bn_eval(conv, bn)
    got = aux.fuse_conv_bn_eval(ms_conv, ms_bn)
    np.testing.assert_allclose(
        got.weight.asnumpy(), fused.weight.detach().numpy(), rtol=RTOL, atol=ATOL
    )
    np.testing.assert_allclose(
        got.bias.asnumpy(), fused.bias.detach().numpy(), rtol=RTOL, atol=ATOL
    )
    data = np.random.RandomState(1).standard_normal((2, 4, 7, 7)).astype(np.float32)
    expected = fused(torch.tensor(data)).detach().numpy()
    np.testing.assert_allclose(
        got(ms.Tensor(data)).asnumpy(), expected, rtol=1e-4, atol=1e-5
    )
    # The original convolution is left as it was, as torch's is.
    np.testing.assert_allclose(
        ms_conv.weight.asnumpy().reshape(conv.weight.shape),
        conv.weight.detach().numpy(),
    )
    assert ms_conv.has_bias == bias
    assert got.weight.requires_grad == fused.weight.requires_grad


def test_fuse_conv_bn_eval_of_a_1d_convolution(aux, fw) -> None:
    torch, ms = fw
    conv, bn = _torch_pair(torch, 1, True, 1)
    ms_conv, ms_bn = aux.Conv1d(4, 6, 3, padding=1), ms.nn.BatchNorm1d(6, eps=1e-3)
    _copy(ms, conv, bn, ms_conv, ms_bn)
    fused = torch.nn.utils.fusion.fuse_conv_bn_eval(conv, bn)
    got = aux.fuse_conv_bn_eval(ms_conv, ms_bn)
    data = np.random.RandomState(2).standard_normal((2, 4, 9)).astype(np.float32)
    np.testing.assert_allclose(
        got(ms.Tensor(data)).asnumpy(),
        fused(torch.tensor(data)).detach().numpy(),
        rtol=1e-4,
        atol=1e-5,
    )


def test_fuse_conv_bn_weights_transposed_matches_torch(aux, fw) -> None:
    torch, ms = fw
    rng = np.random.RandomState(3)
    w = rng.standard_normal((6, 4, 3, 3)).astype(np.float32)  # (in, out, kh, kw)
    stats = [rng.uniform(0.5, 1.5, 4).astype(np.float32) for _ in range(4)]
    expected = torch.nn.utils.fusion.fuse_conv_bn_weights(
        torch.tensor(w), None, *map(torch.tensor, stats[:2]), 1e-5,
        *map(torch.tensor, stats[2:]), transpose=True,
    )  # fmt: skip
    got = aux.fuse_conv_bn_weights(
        ms.Tensor(w), None, *map(ms.Tensor, stats[:2]), 1e-5,
        *map(ms.Tensor, stats[2:]), transpose=True,
    )  # fmt: skip
    for g, e in zip(got, expected):
        np.testing.assert_allclose(
            g.asnumpy(), e.detach().numpy(), rtol=RTOL, atol=ATOL
        )


def test_fusion_needs_evaluation_mode(aux, fw) -> None:
    torch, _ = fw
    conv, bn = _torch_pair(torch, 2, True, 1)
    with pytest.raises(AssertionError):
        torch.nn.utils.fusion.fuse_conv_bn_eval(conv.train(), bn)
    ms_conv, ms_bn = aux.Conv2d(4, 6, 3, padding=1), aux.BatchNorm2d(6)
    ms_conv.set_train(True)
    with pytest.raises(AssertionError):
        aux.fuse_conv_bn_eval(ms_conv, ms_bn)
