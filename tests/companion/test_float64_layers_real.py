"""Layers made in float64 (`dtype=torch.float64`, `.double()`), on the real frameworks.

MindSpore 2.10's CPU BatchNorm kernel takes float16 and float32 only; the companion's BatchNorm
computes a float64 input from reductions in float64, and its `dtype=` makes float64 parameters and
statistics. The values and running statistics are torch's to float64 precision.
"""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest
from torch2ms.rules.companion import assemble

RTOL, ATOL = 1e-10, 1e-12


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    path = tmp_path_factory.mktemp("companion") / "ms_aux_float64.py"
    entries = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "Linear", "module_cast"]
    path.write_text(assemble(entries), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_float64", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["ms_aux_float64"] = module
    spec.loader.exec_module(module)
    return module


# (class, input shape, (eps, momentum, affine, track_running_stats))
BATCHNORMS = [
    ("BatchNorm1d", (4, 5), (1e-5, 0.1, True, True)),
    ("BatchNorm1d", (2, 5, 3), (1e-5, 0.2, True, False)),
    ("BatchNorm2d", (2, 5, 3, 3), (1e-3, None, False, True)),
    ("BatchNorm3d", (2, 5, 2, 3, 3), (1e-5, 0.2, True, True)),
]


@pytest.mark.real
@pytest.mark.parametrize("how", ["dtype", "double"])
@pytest.mark.parametrize(("name", "shape", "args"), BATCHNORMS)
def test_float64_batchnorm_computes_torchs_values(name, shape, args, how, fw, aux):
    torch, ms = fw
    x = np.random.RandomState(0).randn(*shape)
    if how == "dtype":
        expected = getattr(torch.nn, name)(5, *args, None, torch.float64)
        got = getattr(aux, name)(5, *args, None, ms.float64)
    else:
        expected = getattr(torch.nn, name)(5, *args).double()
        got = aux.module_cast(getattr(aux, name)(5, *args), "double")
    got.set_train()
    for _ in range(2):
        want = expected(torch.tensor(x)).detach().numpy()
        have = got(ms.tensor(x))
        assert have.dtype == ms.float64
        np.testing.assert_allclose(have.asnumpy(), want, rtol=RTOL, atol=ATOL)
    if expected.track_running_stats:
        for ours, theirs in (
            ("running_mean", "running_mean"),
            ("running_var", "running_var"),
        ):
            assert getattr(got, ours).dtype == ms.float64
            np.testing.assert_allclose(
                getattr(got, ours).asnumpy(),
                getattr(expected, theirs).numpy(),
                rtol=RTOL,
                atol=ATOL,
            )
        assert int(got.num_batches_tracked) == int(expected.num_batches_tracked)
    expected.eval()
    got.set_train(False)
    np.testing.assert_allclose(
        got(ms.tensor(x)).asnumpy(),
        expected(torch.tensor(x)).detach().numpy(),
        rtol=RTOL,
        atol=ATOL,
    )


@pytest.mark.real
def test_float64_linear_has_float64_parameters(fw, aux):
    torch, ms = fw
    expected = torch.nn.Linear(10, 3, dtype=torch.float64)
    got = aux.Linear(10, 3, dtype=ms.float64)
    assert got.weight.dtype == ms.float64 and got.bias.dtype == ms.float64
    got.weight.set_data(ms.tensor(expected.weight.detach().numpy()))
    got.bias.set_data(ms.tensor(expected.bias.detach().numpy()))
    x = np.random.RandomState(1).randn(2, 4, 10)
    have = got(ms.tensor(x))
    assert have.dtype == ms.float64
    np.testing.assert_allclose(
        have.asnumpy(), expected(torch.tensor(x)).detach().numpy(), rtol=RTOL, atol=ATOL
    )
