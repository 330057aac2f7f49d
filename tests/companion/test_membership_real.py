"""The companion's `isin` (library/membership.py), `cuda_device_count` (library/device_probes.py)
`torch_namespace` (library/namespace.py), `unravel_index` and `scalar_tensor` (library/index_math.py),
`masked_mean` and `masked_var` (library/masked.py), `Gumbel` (library/gumbel.py) against real
torch on the CPU."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest
from torch2ms.rules.companion import assemble

pytestmark = pytest.mark.real


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    path = tmp_path_factory.mktemp("companion") / "ms_aux_membership.py"
    path.write_text(
        assemble(
            [
                "isin",
                "cuda_device_count",
                "torch_namespace",
                "unravel_index",
                "scalar_tensor",
                "masked_mean",
                "masked_var",
                "Gumbel",
            ]
        ),
        encoding="utf-8",
    )
    spec = importlib.util.spec_from_file_location("ms_aux_membership", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["ms_aux_membership"] = module
    spec.loader.exec_module(module)
    return module


ELEMENTS = np.array([[1, 2, 7], [3, 4, 2]], np.int64)
CASES = {
    "tensor_in_tensor": (ELEMENTS, np.array([2, 3], np.int64), {}),
    "tensor_in_number": (ELEMENTS, 3, {}),
    "number_in_tensor": (3, ELEMENTS, {}),
    "inverted": (ELEMENTS, np.array([2, 3], np.int64), {"invert": True}),
    "floats_in_ints": (
        np.array([1.0, 2.5, 3.0], np.float32),
        np.array([3, 1], np.int64),
        {},
    ),
    "nothing_to_find": (ELEMENTS, np.zeros((0,), np.int64), {}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_isin_matches_torch(aux, fw, name) -> None:
    torch, ms = fw
    elements, tests, kwargs = CASES[name]

    def side(make):
        return tuple(
            make(v) if isinstance(v, np.ndarray) else v for v in (elements, tests)
        )

    want = torch.isin(*side(torch.tensor), **kwargs)
    have = aux.isin(*side(ms.Tensor), **kwargs)
    assert have.dtype == ms.bool_
    np.testing.assert_array_equal(have.asnumpy(), want.numpy())


def test_cuda_device_count_on_the_cpu(aux, fw) -> None:
    torch, _ = fw
    assert aux.cuda_device_count() == 0 == torch.cuda.device_count()


def test_torch_namespace_answers_dtype_names(aux, fw) -> None:
    torch, ms = fw
    for name, dtype in (
        ("bfloat16", ms.bfloat16),
        ("long", ms.int64),
        ("bool", ms.bool_),
    ):
        assert hasattr(torch, name)
        assert getattr(aux.torch_namespace, name) == dtype
    assert not hasattr(aux.torch_namespace, "not_a_dtype")
    assert getattr(aux.torch_namespace, "not_a_dtype", None) is None


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 5), 7])
def test_unravel_index_matches_torch(aux, fw, shape) -> None:
    torch, ms = fw
    size = shape if isinstance(shape, int) else int(np.prod(shape))
    flat = np.array([[0, size - 1], [size // 2, 1]], np.int64)
    want = torch.unravel_index(torch.tensor(flat), shape)
    have = aux.unravel_index(ms.Tensor(flat), shape)
    assert len(have) == len(want)
    for h, w in zip(have, want):
        assert h.dtype == ms.int64
        np.testing.assert_array_equal(h.asnumpy(), w.numpy())


def test_scalar_tensor_matches_torch(aux, fw) -> None:
    torch, ms = fw
    for value, kwargs, dtype in ((0, {}, ms.float32), (float("-inf"), {}, ms.float32)):
        want = torch.scalar_tensor(value, **kwargs)
        have = aux.scalar_tensor(value, **kwargs)
        assert have.dtype == dtype and have.shape == tuple(want.shape)
        np.testing.assert_array_equal(have.asnumpy(), want.numpy())
    have = aux.scalar_tensor(2, dtype=ms.float16, device="cpu")
    assert have.dtype == ms.float16 and float(have) == 2.0


MASKED = {
    "grouped_keepdim": ({"dim": (2, 3), "keepdim": True}, {"unbiased": False}),
    "one_dim": ({"dim": 1}, {}),
    "all": ({}, {"correction": 0}),
}


@pytest.mark.parametrize("name", sorted(MASKED))
def test_masked_mean_and_var_match_torch(aux, fw, name) -> None:
    torch, ms = fw
    common, var_only = MASKED[name]
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    mask = rng.random((2, 3, 4, 5)) > 0.3
    mask[..., :2] = True  # every group keeps at least two elements
    want_mean = torch.masked.mean(torch.tensor(x), mask=torch.tensor(mask), **common)
    have_mean = aux.masked_mean(ms.Tensor(x), mask=ms.Tensor(mask), **common)
    np.testing.assert_allclose(
        have_mean.asnumpy(), want_mean.numpy(), rtol=1e-5, atol=1e-6
    )
    want_var = torch.masked.var(
        torch.tensor(x), mask=torch.tensor(mask), **common, **var_only
    )
    have_var = aux.masked_var(ms.Tensor(x), mask=ms.Tensor(mask), **common, **var_only)
    assert have_var.shape == tuple(want_var.shape)
    np.testing.assert_allclose(
        have_var.asnumpy(), want_var.numpy(), rtol=1e-5, atol=1e-6
    )


def test_gumbel_matches_torch(aux, fw) -> None:
    torch, ms = fw
    loc = np.array([0.0, 1.5, -2.0], np.float32)
    scale = np.array([1.0, 0.5, 2.0], np.float32)
    want = torch.distributions.Gumbel(torch.tensor(loc), torch.tensor(scale))
    have = aux.Gumbel(ms.Tensor(loc), ms.Tensor(scale))
    value = np.array([0.3, 1.0, -4.0], np.float32)
    p = np.array([0.1, 0.5, 0.9], np.float32)
    pairs = [
        (have.log_prob(ms.Tensor(value)), want.log_prob(torch.tensor(value))),
        (have.cdf(ms.Tensor(value)), want.cdf(torch.tensor(value))),
        (have.icdf(ms.Tensor(p)), want.icdf(torch.tensor(p))),
        (have.entropy(), want.entropy()),
        (have.mean, want.mean),
        (have.mode, want.mode),
        (have.variance, want.variance),
        (have.stddev, want.stddev),
    ]
    for h, w in pairs:
        np.testing.assert_allclose(h.asnumpy(), w.numpy(), rtol=1e-5, atol=1e-6)
    draws = have.sample((4000,))
    assert (
        draws.shape == tuple(want.sample((4000,)).shape) and draws.dtype == ms.float32
    )
    assert np.isfinite(draws.asnumpy()).all()
    np.testing.assert_allclose(draws.asnumpy().mean(0), want.mean.numpy(), atol=0.15)
    numbers = aux.Gumbel(0, 1).rsample((3,))
    assert numbers.shape == (3,) and numbers.dtype == ms.float32
