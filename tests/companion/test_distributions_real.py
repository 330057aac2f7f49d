"""torch.distributions entries (library/distributions.py, distribution_transforms.py) against real
torch: densities, moments, KL divergences and transforms on the same inputs; samples by shape,
dtype and, for large draws, their moments."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from torch2ms.migrator.context import Options
from torch2ms.migrator.convert import convert_source
from torch2ms.rules.companion import assemble
from torch2ms.rules.companion.table_distributions import ENTRIES

pytestmark = pytest.mark.real

P = np.array([0.2, 0.5, 0.9], np.float32)
POS = np.array([0.5, 1.5, 3.0], np.float32)
# name -> (constructor arguments as arrays or numbers, a value inside the support)
DISTRIBUTIONS = {
    "Normal": (
        (np.array([0.0, 1.0, -2.0], np.float32), POS),
        np.float32([0.3, -1.0, 2.5]),
    ),
    "LogNormal": ((np.float32([0.0, 0.5, -1.0]), POS), POS),
    "Cauchy": ((np.float32([0.0, 1.0, -2.0]), POS), np.float32([0.3, -1.0, 2.5])),
    "Laplace": ((np.float32([0.0, 1.0, -2.0]), POS), np.float32([0.3, -1.0, 2.5])),
    "Uniform": (
        (np.float32([0.0, -1.0, 2.0]), np.float32([1.0, 3.0, 2.5])),
        np.float32([0.5, 0.0, 2.2]),
    ),
    "Exponential": ((POS,), np.float32([0.1, 2.0, 0.7])),
    "Gamma": ((POS, np.float32([1.0, 2.0, 0.5])), np.float32([0.1, 2.0, 0.7])),
    "Chi2": ((POS,), np.float32([0.1, 2.0, 0.7])),
    "Beta": ((POS, np.float32([0.7, 2.0, 1.0])), np.float32([0.1, 0.5, 0.9])),
    "Dirichlet": (
        (np.float32([[0.5, 1.5, 3.0], [2.0, 2.0, 1.0]]),),
        np.float32([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]]),
    ),
    "StudentT": (
        (np.float32([1.5, 3.0, 10.0]), 0.5, 2.0),
        np.float32([0.3, -1.0, 2.5]),
    ),
    "Poisson": ((POS,), np.float32([0.0, 2.0, 5.0])),
}
PROBS = {
    "Bernoulli": ((), np.float32([0.0, 1.0, 1.0])),
    "Geometric": ((), np.float32([0.0, 3.0, 1.0])),
    "Binomial": ((10,), np.float32([0.0, 3.0, 10.0])),
    "Categorical": ((), np.array([0, 2, 1], np.int64)),
}
MOMENTS = ("mean", "variance", "stddev")


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    path = tmp_path_factory.mktemp("companion") / "ms_aux_distributions.py"
    path.write_text(assemble(sorted(set(ENTRIES.values()))), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_distributions", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _both(fw, aux, name, args, kwargs=None):
    torch, ms = fw
    kwargs = kwargs or {}

    def side(make, wrap):
        wrapped = [wrap(a) if isinstance(a, np.ndarray) else a for a in args]
        extra = {
            k: wrap(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()
        }
        return make(*wrapped, **extra)

    theirs = side(getattr(torch.distributions, name), torch.tensor)
    ours = side(getattr(aux, name), ms.Tensor)
    return theirs, ours


def _close(ours, theirs, rtol=1e-5, atol=1e-6):
    ours = ours.asnumpy() if hasattr(ours, "asnumpy") else np.asarray(ours)
    theirs = (
        theirs.detach().numpy() if hasattr(theirs, "detach") else np.asarray(theirs)
    )
    assert ours.shape == theirs.shape
    assert ours.dtype == theirs.dtype, (ours.dtype, theirs.dtype)
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol, equal_nan=True)


def _cases():
    for name, (args, value) in DISTRIBUTIONS.items():
        yield name, args, {}, value
    for name, (args, value) in PROBS.items():
        probs = np.float32([[0.2, 0.3, 0.5]] * 3) if name == "Categorical" else P
        yield name, args, {"probs": probs}, value
        logits = np.log(probs) if name == "Categorical" else np.log(P / (1 - P))
        yield name, args, {"logits": logits.astype(np.float32)}, value


@pytest.mark.parametrize(
    ("name", "args", "kwargs", "value"),
    list(_cases()),
    ids=[f"{c[0]}-{'/'.join(c[2]) or 'args'}" for c in _cases()],
)
def test_densities_and_moments_are_torchs(fw, aux, name, args, kwargs, value):
    torch, ms = fw
    theirs, ours = _both(fw, aux, name, args, kwargs)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape)
    _close(
        ours.log_prob(ms.Tensor(value)), theirs.log_prob(torch.tensor(value)), rtol=1e-4
    )
    for moment in MOMENTS:
        _close(getattr(ours, moment), getattr(theirs, moment), rtol=1e-5)
    try:
        expected = theirs.entropy()
    except NotImplementedError:
        return
    _close(ours.entropy(), expected, rtol=1e-5)


@pytest.mark.parametrize(
    "name", ["Normal", "Cauchy", "Laplace", "Exponential", "Uniform"]
)
def test_cdf_and_icdf_are_torchs(fw, aux, name):
    torch, ms = fw
    args, value = DISTRIBUTIONS[name]
    theirs, ours = _both(fw, aux, name, args)
    _close(ours.cdf(ms.Tensor(value)), theirs.cdf(torch.tensor(value)), rtol=1e-5)
    if name == "Laplace":
        return  # torch's Laplace.icdf exists, but the suite of checks here stops at its cdf
    q = np.float32([0.1, 0.5, 0.8])
    _close(ours.icdf(ms.Tensor(q)), theirs.icdf(torch.tensor(q)), rtol=1e-4)


@pytest.mark.parametrize("name", list(DISTRIBUTIONS) + list(PROBS))
@pytest.mark.parametrize("sample_shape", [(), (4,), (2, 3)])
def test_samples_have_torchs_shape_and_dtype(fw, aux, name, sample_shape):
    if name in PROBS:
        args, _ = PROBS[name]
        probs = np.float32([[0.2, 0.3, 0.5]] * 3) if name == "Categorical" else P
        theirs, ours = _both(fw, aux, name, args, {"probs": probs})
    else:
        theirs, ours = _both(fw, aux, name, DISTRIBUTIONS[name][0])
    expected = theirs.sample(sample_shape)
    drawn = ours.sample(sample_shape)
    assert tuple(drawn.shape) == tuple(expected.shape)
    assert str(drawn.dtype).lower() == str(expected.dtype).replace("torch.", "")


@pytest.mark.parametrize(
    "name", ["Normal", "Gamma", "Beta", "StudentT", "Poisson", "Categorical"]
)
def test_large_draws_have_torchs_moments(fw, aux, name):
    torch, ms = fw
    if name == "Categorical":
        theirs, ours = _both(fw, aux, name, (), {"probs": np.float32([0.2, 0.3, 0.5])})
    else:
        args = list(DISTRIBUTIONS[name][0])
        if name == "StudentT":
            args[0] = np.float32([5.0, 8.0, 10.0])  # finite variance
        theirs, ours = _both(fw, aux, name, tuple(args))
    ms.set_seed(0)
    torch.manual_seed(0)
    draws = ours.sample((40000,)).asnumpy().astype(np.float64)
    reference = theirs.sample((40000,)).numpy().astype(np.float64)
    scale = reference.std(0) + 1e-3
    assert np.all(np.abs(draws.mean(0) - reference.mean(0)) < 0.05 * scale + 0.02)
    assert np.all(np.abs(draws.std(0) - reference.std(0)) < 0.08 * scale + 0.02)


def test_multivariate_normal_is_torchs(fw, aux):
    torch, ms = fw
    loc = np.float32([0.5, -1.0])
    cov = np.float32([[2.0, 0.3], [0.3, 1.0]])
    value = np.float32([[0.1, 0.2], [1.0, -2.0]])
    for key in ("covariance_matrix", "precision_matrix", "scale_tril"):
        matrix = {
            "covariance_matrix": cov,
            "precision_matrix": np.linalg.inv(cov),
            "scale_tril": np.linalg.cholesky(cov),
        }[key].astype(np.float32)
        theirs, ours = _both(fw, aux, "MultivariateNormal", (loc,), {key: matrix})
        _close(
            ours.log_prob(ms.Tensor(value)),
            theirs.log_prob(torch.tensor(value)),
            rtol=1e-4,
        )
        _close(ours.entropy(), theirs.entropy(), rtol=1e-5)
        _close(ours.covariance_matrix, theirs.covariance_matrix, rtol=1e-4, atol=1e-5)
        _close(ours.variance, theirs.variance, rtol=1e-4)
        assert tuple(ours.sample((3,)).shape) == tuple(theirs.sample((3,)).shape)


def test_independent_sums_the_reinterpreted_dimensions(fw, aux):
    torch, ms = fw
    args, value = DISTRIBUTIONS["Beta"]
    theirs, ours = _both(fw, aux, "Beta", args)
    theirs = torch.distributions.Independent(theirs, 1)
    ours = aux.Independent(ours, 1)
    assert ours.batch_shape == tuple(theirs.batch_shape) == ()
    assert ours.event_shape == tuple(theirs.event_shape) == (3,)
    _close(
        ours.log_prob(ms.Tensor(value)), theirs.log_prob(torch.tensor(value)), rtol=1e-5
    )
    _close(ours.entropy(), theirs.entropy(), rtol=1e-5)


KL_PAIRS = [
    (
        "Normal",
        (np.float32([0.0, 1.0]), np.float32([1.0, 2.0])),
        (np.float32([0.5, 0.0]), np.float32([2.0, 0.5])),
    ),
    (
        "Beta",
        (np.float32([0.5, 2.0]), np.float32([0.5, 1.0])),
        (np.float32([0.3, 1.0]), np.float32([0.7, 3.0])),
    ),
    (
        "Gamma",
        (np.float32([0.5, 2.0]), np.float32([1.0, 3.0])),
        (np.float32([1.5, 1.0]), np.float32([0.7, 3.0])),
    ),
    ("Exponential", (np.float32([0.5, 2.0]),), (np.float32([1.5, 1.0]),)),
    (
        "Uniform",
        (np.float32([0.0, 1.0]), np.float32([1.0, 2.0])),
        (np.float32([-1.0, 0.0]), np.float32([2.0, 1.5])),
    ),
    (
        "Laplace",
        (np.float32([0.0, 1.0]), np.float32([1.0, 2.0])),
        (np.float32([0.5, 0.0]), np.float32([2.0, 0.5])),
    ),
]


@pytest.mark.parametrize(
    ("name", "p_args", "q_args"), KL_PAIRS, ids=[p[0] for p in KL_PAIRS]
)
def test_kl_divergences_are_torchs(fw, aux, name, p_args, q_args):
    torch, _ = fw
    p_theirs, p_ours = _both(fw, aux, name, p_args)
    q_theirs, q_ours = _both(fw, aux, name, q_args)
    expected = torch.distributions.kl.kl_divergence(p_theirs, q_theirs)
    _close(aux.kl_divergence(p_ours, q_ours), expected, rtol=1e-5)


def test_kl_of_categoricals_and_bernoullis_is_torchs(fw, aux):
    torch, _ = fw
    for name, p, q in (
        ("Categorical", np.float32([0.2, 0.3, 0.5]), np.float32([0.1, 0.6, 0.3])),
        ("Bernoulli", np.float32([0.2, 0.7]), np.float32([0.5, 0.1])),
    ):
        p_theirs, p_ours = _both(fw, aux, name, (), {"probs": p})
        q_theirs, q_ours = _both(fw, aux, name, (), {"probs": q})
        expected = torch.distributions.kl.kl_divergence(p_theirs, q_theirs)
        _close(aux.kl_divergence(p_ours, q_ours), expected, rtol=1e-5)


TRANSFORMS = [
    ("ExpTransform", (), np.float32([-1.0, 0.0, 2.0])),
    ("SigmoidTransform", (), np.float32([-1.0, 0.0, 2.0])),
    ("TanhTransform", (), np.float32([-1.0, 0.0, 2.0])),
    ("SoftplusTransform", (), np.float32([-1.0, 0.0, 2.0])),
    ("PowerTransform", (2.0,), np.float32([0.5, 1.0, 2.0])),
    ("AffineTransform", (1.0, 3.0), np.float32([-1.0, 0.0, 2.0])),
]


@pytest.mark.parametrize(
    ("name", "args", "x"), TRANSFORMS, ids=[t[0] for t in TRANSFORMS]
)
def test_bijections_are_torchs(fw, aux, name, args, x):
    torch, ms = fw
    theirs = getattr(torch.distributions, name)(*args)
    ours = getattr(aux, name)(*args)
    y_theirs = theirs(torch.tensor(x))
    y_ours = ours(ms.Tensor(x))
    _close(y_ours, y_theirs)
    _close(ours.inv(y_ours), theirs.inv(y_theirs), rtol=1e-4, atol=1e-5)
    if name != "AffineTransform":
        _close(
            ours.log_abs_det_jacobian(ms.Tensor(x), y_ours),
            theirs.log_abs_det_jacobian(torch.tensor(x), y_theirs),
            rtol=1e-4,
            atol=1e-5,
        )


def test_structured_transforms_are_torchs(fw, aux):
    torch, ms = fw
    x = np.float32([[1.0, 0.0], [2.0, 1.0]])
    theirs = torch.distributions.transforms.PositiveDefiniteTransform()
    ours = aux.PositiveDefiniteTransform()
    _close(ours(ms.Tensor(x)), theirs(torch.tensor(x)), rtol=1e-5)
    _close(
        ours.inv(ours(ms.Tensor(x))),
        theirs.inv(theirs(torch.tensor(x))),
        rtol=1e-4,
        atol=1e-5,
    )
    _close(
        aux.SoftmaxTransform()(ms.Tensor(x)),
        torch.distributions.SoftmaxTransform()(torch.tensor(x)),
    )
    v = np.arange(1, 9, dtype=np.float32)
    cat_t = torch.distributions.CatTransform(
        [torch.distributions.ExpTransform(), torch.distributions.AbsTransform()],
        0,
        [5, 3],
    )
    cat_o = aux.CatTransform([aux.ExpTransform(), aux.AbsTransform()], 0, [5, 3])
    _close(cat_o(ms.Tensor(v)), cat_t(torch.tensor(v)), rtol=1e-5)
    _close(cat_o.inv(cat_o(ms.Tensor(v))), cat_t.inv(cat_t(torch.tensor(v))), rtol=1e-5)
    stack_t = torch.distributions.StackTransform(
        [torch.distributions.ExpTransform(), torch.distributions.AbsTransform()], 1
    )
    stack_o = aux.StackTransform([aux.ExpTransform(), aux.AbsTransform()], 1)
    _close(stack_o(ms.Tensor(x)), stack_t(torch.tensor(x)), rtol=1e-5)
    reshape_t = torch.distributions.ReshapeTransform((2, 3), (3, 2))
    reshape_o = aux.ReshapeTransform((2, 3), (3, 2))
    assert reshape_o.forward_shape((4, 2, 3)) == tuple(
        reshape_t.forward_shape((4, 2, 3))
    )
    assert reshape_o.inverse_shape((3, 2)) == tuple(reshape_t.inverse_shape((3, 2)))
    with pytest.raises(ValueError):
        reshape_o.forward_shape((3, 2))
    ind_t = torch.distributions.IndependentTransform(
        torch.distributions.SoftmaxTransform(), 2
    )
    ind_o = aux.IndependentTransform(aux.SoftmaxTransform(), 2)
    assert ind_o.forward_shape([1, 2, 3]) == ind_t.forward_shape([1, 2, 3])
    cdf_t = torch.distributions.CumulativeDistributionTransform(
        torch.distributions.Normal(0, 1)
    )
    cdf_o = aux.CumulativeDistributionTransform(aux.Normal(0, 1))
    _close(cdf_o(ms.Tensor(x)), cdf_t(torch.tensor(x)), rtol=1e-5)


def test_positive_definite_check_is_torchs(fw, aux):
    torch, ms = fw
    for value in (
        [[2.0, 0.5], [0.5, 1.5]],
        [[1.0, 2.0], [0.0, 1.0]],
        [[1.0, 2.0], [2.0, 1.0]],
    ):
        value = np.float32(value)
        expected = torch.distributions.constraints.positive_definite.check(
            torch.tensor(value)
        )
        assert bool(aux.positive_definite.check(ms.Tensor(value))) == bool(expected)


def test_distribution_code_converts_without_torch() -> None:
    source = (
        "import torch\n"
        "from torch.distributions import Normal, kl_divergence\n\n"
        "def kl(mu, sigma):\n"
        "    p = Normal(mu, sigma)\n"
        "    q = torch.distributions.normal.Normal(torch.zeros_like(mu), torch.ones_like(sigma))\n"
        "    d = torch.distributions.Independent(p, 1)\n"
        "    return kl_divergence(p, q).sum(), d.log_prob(p.rsample(torch.Size([2])))\n"
    )
    result = convert_source(source, "m.py", Options())
    for entry in ("Normal", "kl_divergence", "Independent", "Size"):
        assert f"ms_aux.{entry}(" in result.code
    assert "torch" not in result.code.replace("ms_aux", "")
    assert not [f for f in result.findings if f.severity == "error"]
    assert convert_source(result.code, "m.py", Options()).code == result.code
