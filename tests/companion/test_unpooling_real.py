"""The companion's unpooling, instance norm, Poisson NLL, max_pool1d and embedding entries
against real torch: values and gradients with respect to every float input."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest
from torch2ms.rules.companion import assemble
from torch2ms.rules.companion.table_unpooling import ENTRIES

pytestmark = pytest.mark.real


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    path = tmp_path_factory.mktemp("companion") / "ms_aux_unpooling.py"
    path.write_text(assemble(sorted(set(ENTRIES.values()))), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_unpooling", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["ms_aux_unpooling"] = module
    spec.loader.exec_module(module)
    return module


def _randn(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _compare(fw, torch_fn, ms_fn, arrays, atol=1e-5):
    """Values and float-input gradients of sum(out * cotangent) on both frameworks."""
    torch, ms = fw
    leaves = [
        torch.tensor(a, requires_grad=a.dtype == np.float32) for a in arrays
    ]
    out = torch_fn(*leaves)
    cotangent = _randn(*out.shape, seed=7)
    (out * torch.tensor(cotangent)).sum().backward()
    floats = tuple(i for i, a in enumerate(arrays) if a.dtype == np.float32)

    def forward(*inputs):
        result = ms_fn(*inputs)
        return (result * ms.Tensor(cotangent)).sum(), result

    (_, have), grads = ms.value_and_grad(forward, floats, None, has_aux=True)(
        *[ms.Tensor(a) for a in arrays]
    )
    np.testing.assert_allclose(have.asnumpy(), out.detach().numpy(), rtol=1e-5, atol=atol)
    grads = grads if isinstance(grads, tuple) else (grads,)
    for grad, index in zip(grads, floats):
        np.testing.assert_allclose(
            grad.asnumpy(), leaves[index].grad.numpy(), rtol=1e-4, atol=atol
        )


@pytest.mark.parametrize(
    ("rank", "shape", "kwargs"),
    [
        (1, (2, 3, 8), {}),
        (2, (2, 3, 4, 6), {}),
        (2, (1, 2, 5, 5), {"output_size": (5, 5)}),
        (3, (1, 2, 4, 4, 4), {}),
    ],
)
def test_max_unpool(fw, aux, rank, shape, kwargs) -> None:
    torch, ms = fw
    x = _randn(*shape)
    pool = getattr(torch.nn.functional, f"max_pool{rank}d")
    pooled, indices = pool(torch.tensor(x), 2, return_indices=True)
    unpool = f"max_unpool{rank}d"
    _compare(
        fw,
        lambda p: getattr(torch.nn.functional, unpool)(p, indices, 2, **kwargs),
        lambda p: getattr(aux, unpool)(p, ms.Tensor(indices.numpy()), 2, **kwargs),
        [pooled.numpy()],
    )


@pytest.mark.parametrize("kwargs", [{}, {"stride": 1, "padding": 1}, {"dilation": 2}])
def test_max_pool1d(fw, aux, kwargs) -> None:
    torch, ms = fw
    x = _randn(2, 3, 9)
    _compare(
        fw,
        lambda t: torch.nn.functional.max_pool1d(t, 3, **kwargs),
        lambda m: aux.max_pool1d(m, 3, **kwargs),
        [x],
    )
    _, want = torch.nn.functional.max_pool1d(torch.tensor(x), 3, return_indices=True)
    _, have = aux.max_pool1d(ms.Tensor(x), 3, return_indices=True)
    np.testing.assert_array_equal(have.asnumpy(), want.numpy())


@pytest.mark.parametrize(
    ("name", "shape", "kwargs"),
    [
        ("InstanceNorm1d", (2, 3, 6), {}),
        ("InstanceNorm2d", (2, 3, 4, 4), {"affine": True}),
        ("InstanceNorm2d", (3, 4, 4), {"affine": True, "track_running_stats": True}),
        ("InstanceNorm3d", (2, 3, 2, 3, 3), {"eps": 1e-3}),
    ],
)
def test_instance_norm(fw, aux, name, shape, kwargs) -> None:
    torch, ms = fw
    torch_layer = getattr(torch.nn, name)(3, **kwargs)
    ms_layer = getattr(aux, name)(3, **kwargs)
    if kwargs.get("affine"):
        weight, bias = _randn(3, seed=1) + 1, _randn(3, seed=2)
        with torch.no_grad():
            torch_layer.weight.copy_(torch.tensor(weight))
            torch_layer.bias.copy_(torch.tensor(bias))
        ms_layer.gamma.set_data(ms.Tensor(weight))
        ms_layer.beta.set_data(ms.Tensor(bias))
    x = _randn(*shape, seed=3) * 2 + 1
    for training in (True, False):
        torch_layer.train(training)
        ms_layer.set_train(training)
        _compare(fw, torch_layer, ms_layer, [x])
        if kwargs.get("track_running_stats"):
            np.testing.assert_allclose(
                ms_layer.running_var.asnumpy(),
                torch_layer.running_var.numpy(),
                rtol=1e-5,
                atol=1e-6,
            )


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"log_input": False}, {"full": True, "reduction": "none"}, {"reduction": "sum"}],
)
def test_poisson_nll_loss(fw, aux, kwargs) -> None:
    torch, ms = fw
    x = np.abs(_randn(3, 4)) + 0.1
    target = np.abs(_randn(3, 4, seed=5)) * 3
    _compare(
        fw,
        lambda t: torch.nn.PoissonNLLLoss(**kwargs)(t, torch.tensor(target)),
        lambda m: aux.PoissonNLLLoss(**kwargs)(m, ms.Tensor(target)),
        [x],
    )


@pytest.mark.parametrize("scale_grad_by_freq", [False, True])
@pytest.mark.parametrize("padding_idx", [None, 0, -1])
def test_embedding(fw, aux, padding_idx, scale_grad_by_freq) -> None:
    """With `scale_grad_by_freq` the rows named more than once get their gradient divided by the
    count (ids name row 2 three times)."""
    torch, ms = fw
    ids = np.array([[0, 2, 2], [4, 1, 2]], np.int64)
    _compare(
        fw,
        lambda w: torch.nn.functional.embedding(
            torch.tensor(ids),
            w,
            padding_idx=padding_idx,
            scale_grad_by_freq=scale_grad_by_freq,
        ),
        lambda w: aux.embedding(
            ms.Tensor(ids),
            w,
            padding_idx=padding_idx,
            scale_grad_by_freq=scale_grad_by_freq,
        ),
        [_randn(5, 3)],
    )


def test_instance_norm_updates_statistics_after_the_output(fw, aux) -> None:
    """One tensor passed as running mean, running variance, weight and bias: torch reads the
    weight before it updates the statistics, and the variance's update is the one kept."""
    torch, ms = fw
    x = _randn(2, 3, 4, seed=11)
    shared_t = torch.ones(3)
    want = torch.nn.functional.instance_norm(
        torch.tensor(x), shared_t, shared_t, shared_t, shared_t
    )
    shared_m = ms.Tensor(np.ones(3, np.float32))
    have = aux.instance_norm(ms.Tensor(x), shared_m, shared_m, shared_m, shared_m)
    np.testing.assert_allclose(have.asnumpy(), want.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(shared_m.asnumpy(), shared_t.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(("max_norm", "norm_type"), [(2.0, 2.0), (1.0, 1.0)])
def test_embedding_max_norm_renormalises_the_rows_used(fw, aux, max_norm, norm_type) -> None:
    torch, ms = fw
    weight = _randn(5, 3, seed=12) * 3
    ids = np.array([[0, 2], [2, 4]], np.int64)
    t_weight = torch.tensor(weight)
    want = torch.nn.functional.embedding(
        torch.tensor(ids), t_weight, max_norm=max_norm, norm_type=norm_type
    )
    m_weight = ms.Parameter(ms.Tensor(weight))
    have = aux.embedding(ms.Tensor(ids), m_weight, max_norm=max_norm, norm_type=norm_type)
    np.testing.assert_allclose(have.asnumpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(m_weight.asnumpy(), t_weight.numpy(), rtol=1e-5, atol=1e-6)
