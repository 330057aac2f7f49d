"""The companion's Softmin/LogSoftmax with torch's implicit axis, Softshrink, Softplus, the
smooth L1 loss with any beta and channel dropout of any rank, against real torch."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest
from torch2ms.rules.companion import assemble
from torch2ms.rules.companion.table_layers_more import ENTRIES

pytestmark = pytest.mark.real


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    path = tmp_path_factory.mktemp("companion") / "ms_aux_layers_more.py"
    path.write_text(assemble(sorted({*ENTRIES.values(), "Unfold"})), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_layers_more", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["ms_aux_layers_more"] = module
    spec.loader.exec_module(module)
    return module


def _randn(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("name", ["Softmin", "LogSoftmax"])
@pytest.mark.parametrize(
    ("shape", "dim"),
    [
        ((4,), None),
        ((2, 3), None),
        ((2, 3, 4), None),
        ((2, 3, 4, 2), None),
        ((2, 3, 4), -1),
    ],
)
def test_softmin_and_log_softmax_axes(fw, aux, name, shape, dim) -> None:
    torch, ms = fw
    x = _randn(*shape)
    want = getattr(torch.nn, name)(dim)(torch.tensor(x)).numpy()
    np.testing.assert_allclose(
        getattr(aux, name)(dim)(ms.Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-6
    )


@pytest.mark.parametrize("lambd", [0.0, 0.3, 1.5])
def test_softshrink(fw, aux, lambd) -> None:
    torch, ms = fw
    x = _randn(3, 5)
    want = torch.nn.Softshrink(lambd)(torch.tensor(x)).numpy()
    np.testing.assert_allclose(
        aux.Softshrink(lambd)(ms.Tensor(x)).asnumpy(), want, rtol=1e-6
    )
    np.testing.assert_allclose(
        aux.softshrink(ms.Tensor(x), lambd).asnumpy(), want, rtol=1e-6
    )


@pytest.mark.parametrize(
    ("shape", "eps", "affine"),
    [(5, None, True), ((4, 5), 1e-3, True), (5, 1e-6, False)],
)
def test_rmsnorm(fw, aux, shape, eps, affine) -> None:
    torch, ms = fw
    x = _randn(2, 4, 5)
    layer = torch.nn.RMSNorm(shape, eps=eps, elementwise_affine=affine)
    ours = aux.RMSNorm(shape, eps=eps, elementwise_affine=affine)
    if affine:
        weight = _randn(*layer.weight.shape, seed=3)
        layer.weight.data = torch.tensor(weight)
        ours.weight.set_data(ms.Tensor(weight))
        assert [p.name for p in ours.get_parameters()] == ["weight"]
    else:
        assert ours.weight is None and not list(ours.get_parameters())
    want = layer(torch.tensor(x)).detach().numpy()
    np.testing.assert_allclose(ours(ms.Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(("beta", "threshold"), [(1.0, 20.0), (2.0, 1.0), (0.5, 3.0)])
def test_softplus(fw, aux, beta, threshold) -> None:
    torch, ms = fw
    x = _randn(3, 5) * 8
    want = torch.nn.Softplus(beta, threshold)(torch.tensor(x)).numpy()
    have = aux.Softplus(beta=beta, threshold=threshold)(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(have, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        aux.Softplus()(ms.Tensor(x)).asnumpy(),
        torch.nn.Softplus()(torch.tensor(x)).numpy(),
        rtol=1e-5,
        atol=1e-6,
    )


@pytest.mark.parametrize(
    ("beta", "reduction"), [(0.0, "mean"), (0.0, "none"), (0.5, "sum"), (2.0, "mean")]
)
def test_smooth_l1_loss(fw, aux, beta, reduction) -> None:
    torch, ms = fw
    x, y = _randn(3, 4, seed=1), _randn(3, 4, seed=2)
    want = torch.nn.functional.smooth_l1_loss(
        torch.tensor(x), torch.tensor(y), reduction=reduction, beta=beta
    )
    have = aux.smooth_l1_loss(
        ms.Tensor(x), ms.Tensor(y), reduction=reduction, beta=beta
    )
    np.testing.assert_allclose(have.asnumpy(), want.numpy(), rtol=1e-5)
    layer = aux.SmoothL1Loss(reduction=reduction, beta=beta)
    np.testing.assert_allclose(
        layer(ms.Tensor(x), ms.Tensor(y)).asnumpy(), want.numpy(), rtol=1e-5
    )


@pytest.mark.parametrize(
    ("rank", "shape"),
    [(1, (4, 6, 50)), (1, (6, 50)), (2, (3, 8, 5, 5)), (3, (2, 8, 3, 3, 3))],
)
def test_channel_dropout(fw, aux, rank, shape) -> None:
    """Whole channels are zeroed, the rest scaled by 1 / (1 - p), as torch's; in place with
    `inplace=True`; the identity outside training."""
    _, ms = fw
    x = np.abs(_randn(*shape)) + 1
    function = getattr(aux, f"dropout{rank}d")
    np.testing.assert_array_equal(
        function(ms.Tensor(x), 0.5, training=False).asnumpy(), x
    )
    tensor = ms.Tensor(x)
    out = function(tensor, 0.5, True, True).asnumpy()
    np.testing.assert_array_equal(tensor.asnumpy(), out)
    channels = out.reshape(shape[: len(shape) - rank] + (-1,))
    zeroed = np.all(channels == 0, axis=-1)
    kept = np.all(np.isclose(channels, x.reshape(channels.shape) * 2), axis=-1)
    assert np.all(zeroed | kept) and zeroed.any() and kept.any()


def test_bilinear_with_torchs_weights(fw, aux) -> None:
    torch, ms = fw
    torch_layer = torch.nn.Bilinear(3, 4, 5, dtype=torch.float32)
    layer = aux.Bilinear(3, 4, 5, dtype=ms.float32)
    assert layer.weight.shape == tuple(torch_layer.weight.shape)
    layer.weight.set_data(ms.Tensor(torch_layer.weight.detach().numpy()))
    layer.bias.set_data(ms.Tensor(torch_layer.bias.detach().numpy()))
    a, b = _randn(2, 3, seed=1), _randn(2, 4, seed=2)
    want = torch_layer(torch.tensor(a), torch.tensor(b)).detach().numpy()
    np.testing.assert_allclose(
        layer(ms.Tensor(a), ms.Tensor(b)).asnumpy(), want, rtol=1e-5, atol=1e-5
    )


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_regression_losses(fw, aux, reduction) -> None:
    torch, ms = fw
    F = torch.nn.functional
    x, y = _randn(3, 4, seed=1) * 3, _randn(3, 4, seed=2)
    tx, ty, mx, my = torch.tensor(x), torch.tensor(y), ms.Tensor(x), ms.Tensor(y)
    checks = [
        (
            aux.l1_loss(mx, my, reduction=reduction),
            F.l1_loss(tx, ty, reduction=reduction),
        ),
        (
            aux.mse_loss(mx, my, reduction=reduction),
            F.mse_loss(tx, ty, reduction=reduction),
        ),
        (
            aux.MSELoss(reduction=reduction)(mx, my),
            torch.nn.MSELoss(reduction=reduction)(tx, ty),
        ),
        (aux.huber_loss(mx, my, reduction, 2.0), F.huber_loss(tx, ty, reduction, 2.0)),
    ]
    for have, want in checks:
        np.testing.assert_allclose(have.asnumpy(), want.numpy(), rtol=1e-5, atol=1e-6)


def test_one_hot_infers_the_number_of_classes(fw, aux) -> None:
    torch, ms = fw
    index = np.array([[1, 2], [0, 4]], dtype=np.int64)
    for classes in (-1, 6):
        want = torch.nn.functional.one_hot(torch.tensor(index), classes)
        have = aux.one_hot(ms.Tensor(index), classes)
        assert have.dtype == ms.int64
        np.testing.assert_array_equal(have.asnumpy(), want.numpy())


def test_batch_norm_base_is_a_mindspore_batch_norm(fw, aux) -> None:
    torch, ms = fw
    from mindspore.nn.layer.normalization import _BatchNorm

    layer = aux.BatchNormBase(3, 1e-5, 0.1, True, True, "cpu", ms.float32)
    assert isinstance(layer, _BatchNorm)
    assert isinstance(layer, ms.nn.Cell)
    torch_layer = torch.nn.modules.batchnorm._BatchNorm(3)
    assert [p.name for p in layer.trainable_params()] == ["gamma", "beta"]
    assert layer.weight is layer.gamma and torch_layer.weight is not None


def test_unfold_takes_sizes_as_tensors(fw, aux) -> None:
    torch, ms = fw
    x = _randn(2, 2, 5, 6)
    sizes = {"kernel_size": [3, 2], "dilation": (2, 1), "padding": 1, "stride": [1, 2]}
    want = torch.nn.Unfold(
        **{k: torch.tensor(v) if isinstance(v, list) else v for k, v in sizes.items()}
    )(torch.tensor(x))
    layer = aux.Unfold(
        **{k: ms.Tensor(v) if isinstance(v, list) else v for k, v in sizes.items()}
    )
    np.testing.assert_array_equal(layer(ms.Tensor(x)).asnumpy(), want.numpy())
