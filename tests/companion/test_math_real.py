"""The torch.linalg, torch.fft, torch.special and torch.signal.windows companion entries against
real torch: each case calls the torch API and the entry a conversion writes for it, on the same
inputs and arguments, and compares values, shapes and dtypes (named results field by field)."""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest
from torch2ms.rules.companion import ENTRIES, assemble

pytestmark = pytest.mark.real

FAMILIES = ("torch.linalg.", "torch.fft.", "torch.special.", "torch.signal.windows.")
# torch.* forms served by the same library files.
TOP_LEVEL = (
    "torch.complex",
    "torch.view_as_complex",
    "torch.svd",
    "torch.lu",
    "torch.pinverse",
    "torch.cholesky_solve",
    "torch.geqrf",
    "torch.ormqr",
    "torch.vander",
)
RTOL, ATOL = 1e-5, 1e-5


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    folder = tmp_path_factory.mktemp("companion_math")
    path = folder / "ms_aux_math.py"
    names = {e for t, e in ENTRIES.items() if t.startswith(FAMILIES) or t in TOP_LEVEL}
    path.write_text(assemble(sorted(names)), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_math", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def f32(*shape, seed=0, low=None, high=None):
    r = rng(seed)
    if low is not None:
        return r.uniform(low, high, size=shape).astype(np.float32)
    return r.standard_normal(shape).astype(np.float32)


def spd(n, batch=(), seed=0):
    a = rng(seed).standard_normal(batch + (n, n))
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(np.float32)


class Arr:
    """An input array, given to torch as a torch tensor and to the entry as a MindSpore tensor."""

    def __init__(self, values):
        self.values = np.asarray(values)


class DType:
    def __init__(self, name):
        self.name = name


def _to(framework_tensor, framework_dtype, value):
    if isinstance(value, Arr):
        return framework_tensor(value.values.copy())
    if isinstance(value, DType):
        return framework_dtype(value.name)
    if isinstance(value, (list, tuple)):
        return type(value)(_to(framework_tensor, framework_dtype, v) for v in value)
    return value


def leaves(value, torch, ms) -> list:
    if isinstance(value, torch.Tensor):
        return [value.detach().resolve_conj().resolve_neg().numpy()]
    if isinstance(value, ms.Tensor):
        return [value.asnumpy()]
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in leaves(item, torch, ms)]
    return [np.asarray(value)]


def run(fw, aux, torch_name, args=(), kwargs=None, absolute=(), rtol=RTOL, atol=ATOL):
    """Call torch's API and its entry; compare every output (`absolute`: outputs compared by
    magnitude, where the sign of a vector is free)."""
    torch, ms = fw
    kwargs = kwargs or {}
    function = torch
    for part in torch_name.split(".")[1:]:
        function = getattr(function, part)
    expected = function(
        *_to(torch.tensor, lambda n: getattr(torch, n), args),
        **{
            k: _to(torch.tensor, lambda n: getattr(torch, n), v)
            for k, v in kwargs.items()
        },
    )
    entry = getattr(aux, ENTRIES[torch_name])
    got = entry(
        *_to(ms.Tensor, lambda n: getattr(ms, n), args),
        **{k: _to(ms.Tensor, lambda n: getattr(ms, n), v) for k, v in kwargs.items()},
    )
    want_leaves, got_leaves = leaves(expected, torch, ms), leaves(got, torch, ms)
    assert len(want_leaves) == len(got_leaves)
    for index, (want, have) in enumerate(zip(want_leaves, got_leaves)):
        assert want.shape == have.shape, f"output {index}: {want.shape} vs {have.shape}"
        assert want.dtype == have.dtype, f"output {index}: {want.dtype} vs {have.dtype}"
        if index in absolute:
            want, have = np.abs(want), np.abs(have)
        np.testing.assert_allclose(
            have, want, rtol=rtol, atol=atol, err_msg=f"output {index}"
        )
    return expected, got


# -- torch.signal.windows ---------------------------------------------------------------------
W = "torch.signal.windows."
WINDOWS = [
    (W + "bartlett", (7,), {}),
    (W + "bartlett", (8,), {"sym": False}),
    (W + "blackman", (7,), {"sym": False, "dtype": DType("float64")}),
    (W + "cosine", (6,), {}),
    (W + "cosine", (6,), {"sym": False}),
    (W + "exponential", (9,), {"tau": 0.5}),
    (W + "exponential", (9,), {"center": 2.0, "sym": False}),
    (W + "gaussian", (8,), {"std": 0.9}),
    (W + "gaussian", (8,), {"std": 1.5, "sym": False, "dtype": DType("float64")}),
    (W + "general_cosine", (10,), {"a": [0.46, 0.23, 0.31]}),
    (W + "general_hamming", (7,), {"alpha": 0.6, "sym": False}),
    (W + "hamming", (7,), {}),
    (W + "hann", (7,), {"sym": False}),
    (W + "kaiser", (5,), {}),
    (W + "kaiser", (6,), {"beta": 0.9, "sym": False}),
    (W + "nuttall", (9,), {}),
    (W + "hann", (1,), {}),
    (W + "hann", (0,), {}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), WINDOWS)
def test_windows(fw, aux, name, args, kwargs) -> None:
    run(fw, aux, name, args, kwargs)


# -- torch.fft ----------------------------------------------------------------------------------
def c64(*shape, seed=0):
    r = rng(seed)
    return (r.standard_normal(shape) + 1j * r.standard_normal(shape)).astype(
        np.complex64
    )


FFT = [
    ("torch.fft.hfft", (Arr(c64(3, 4)),), {"n": 5, "norm": "ortho"}),
    ("torch.fft.hfft2", (Arr(c64(3, 4)),), {"s": (2, 5)}),
    ("torch.fft.hfftn", (Arr(c64(2, 3)),), {"s": (2, 5), "dim": (0, 1)}),
    ("torch.fft.hfftn", (Arr(np.arange(6).reshape(2, 3)),), {"norm": "forward"}),
    ("torch.fft.ihfft", (Arr(f32(3, 4)),), {"n": 5, "norm": "forward"}),
    ("torch.fft.ihfft2", (Arr(f32(3, 4)),), {}),
    ("torch.fft.ihfftn", (Arr(f32(2, 3, 4)),), {"s": (2, 5), "norm": "ortho"}),
    ("torch.fft.fft", (Arr(np.arange(9).reshape(3, 3)),), {"n": 2, "dim": 1}),
    (
        "torch.fft.rfftn",
        (Arr(f32(2, 3, 4).astype(np.float64)),),
        {"s": (2,), "dim": (1,)},
    ),
    ("torch.fft.fftfreq", (5, 2), {"dtype": DType("float64")}),
    ("torch.fft.rfftfreq", (5,), {}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), FFT)
def test_fft(fw, aux, name, args, kwargs) -> None:
    run(fw, aux, name, args, kwargs)


def test_hermitian_transforms_repeat_their_result(fw, aux) -> None:
    """MindSpore's own hfft kernels alternate between two results; the entries must not."""
    _, ms = fw
    t = ms.Tensor(c64(2, 3))
    first = aux.fft_hfftn(t, (2, 5), (0, 1), "backward").asnumpy()
    second = aux.fft_hfftn(t, (2, 5), (0, 1), "backward").asnumpy()
    np.testing.assert_array_equal(first, second)


def test_fft_writes_out(fw, aux) -> None:
    torch, ms = fw
    x = f32(3, 4)
    out_t = torch.tensor([], dtype=torch.complex64)
    out_m = ms.tensor([], ms.complex64)
    torch.fft.rfft2(torch.tensor(x), s=(4, 2), out=out_t)
    result = aux.fft_rfft2(ms.Tensor(x), s=(4, 2), out=out_m)
    assert result is out_m and out_m.dtype == ms.complex64
    np.testing.assert_allclose(out_m.asnumpy(), out_t.numpy(), rtol=RTOL, atol=ATOL)


# -- torch.special ------------------------------------------------------------------------------
S = "torch.special."
P = Arr(np.array([0.01, 0.3, 0.5, 0.9, 0.999, 0.99999], np.float32))
X = Arr(np.array([-3.0, -0.5, 0.0, 0.7, 3.0, 12.0], np.float32))
SPECIAL = [
    (S + "erf", (Arr(np.array([0, -1, 2])),), {}),
    (S + "erfc", (X,), {}),
    (
        S + "erfinv",
        (Arr(np.array([-0.999, -0.5, 0.0, 0.3, 0.99, 0.99999], np.float32)),),
        {},
    ),
    (S + "erfcx", (Arr(np.array([-2.0, 0.0, 1.0, 10.0, 30.0, 1e4], np.float32)),), {}),
    (S + "ndtr", (X,), {}),
    (S + "ndtri", (P,), {}),
    (S + "log_ndtr", (X,), {}),
    (S + "expit", (X,), {}),
    (S + "exp2", (Arr(np.array([0, -2, 3])),), {}),
    (S + "entr", (Arr(np.array([-1.0, 0.0, 0.5, 2.0], np.float32)),), {}),
    (S + "logit", (P,), {}),
    (S + "logit", (P, 0.05), {}),
    (
        S + "xlogy",
        (
            Arr(np.array([0.0, 0.0, 1.0, 2.0], np.float32)),
            Arr(np.array([0.0, 3.0, 2.0, 0.5], np.float32)),
        ),
        {},
    ),
    (S + "xlog1py", (1, Arr(np.array([1.0, 2.0, 3.0]))), {}),
    (S + "xlog1py", (Arr(np.array([1.0, 0.0], np.float32)), 1.0), {}),
    (
        S + "zeta",
        (Arr(np.array([2.0, 3.5], np.float32)), Arr(np.array([1.0, 0.5], np.float32))),
        {},
    ),
    (S + "gammaln", (P,), {}),
    (S + "digamma", (P,), {}),
    (S + "psi", (Arr(np.array([1, 2, 3])),), {}),
    (S + "polygamma", (1, P), {}),
    (S + "multigammaln", (Arr(np.array([2.5, 3.0, 10.0], np.float32)), 2), {}),
    (
        S + "gammainc",
        (Arr(np.array([2.0, 9.0], np.float32)), Arr(np.array([3.0, 4.0], np.float32))),
        {},
    ),
    (
        S + "gammaincc",
        (Arr(np.array([2.0, 9.0], np.float32)), Arr(np.array([3.0, 4.0], np.float32))),
        {},
    ),
    (S + "i0", (X,), {}),
    (S + "i0e", (X,), {}),
    (S + "i1", (X,), {}),
    (S + "i1e", (X,), {}),
    (S + "bessel_j0", (X,), {}),
    (S + "bessel_j1", (X,), {}),
    (S + "sinc", (X,), {}),
    (S + "logsumexp", (Arr(f32(2, 3)), 1, True), {}),
    (S + "logsumexp", (Arr(f32(2, 3, 4)), (0, 2)), {}),
    (S + "softmax", (Arr(f32(2, 3)), 0), {"dtype": DType("float64")}),
    (S + "log_softmax", (Arr(f32(2, 3)), 1), {}),
    (S + "round", (Arr(np.array([0.5, 1.5, 2.5, -0.125, 1234.5678], np.float32)),), {}),
    (
        S + "round",
        (Arr(np.array([0.125, 1.005, 1234.5678], np.float64)),),
        {"decimals": 2},
    ),
    (S + "round", (Arr(np.array([1234.5678, -55.0], np.float32)),), {"decimals": -2}),
    (S + "bessel_y1", (Arr(np.array([-1.0, 0.0, 0.5, 7.0], np.float32)),), {}),
    (S + "modified_bessel_k0", (Arr(np.array([-1.0, 0.0, 0.5, 7.0], np.float32)),), {}),
    (S + "scaled_modified_bessel_k1", (X,), {}),
    (S + "spherical_bessel_j0", (X,), {}),
    (S + "chebyshev_polynomial_t", (Arr(f32(6, low=-1.5, high=1.5)), 7), {}),
    (S + "shifted_chebyshev_polynomial_w", (Arr(f32(6, low=0.0, high=1.0)), 4), {}),
    (S + "hermite_polynomial_h", (Arr(f32(5)), Arr(np.array([0, 1, 2, 5, -1]))), {}),
    (S + "laguerre_polynomial_l", (Arr(f32(5, low=0.0, high=3.0)), 6), {}),
    (S + "legendre_polynomial_p", (Arr(f32(5, low=-1.0, high=1.0)), 3), {}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), SPECIAL)
def test_special(fw, aux, name, args, kwargs) -> None:
    run(fw, aux, name, args, kwargs)


def test_special_gradients(fw, aux) -> None:
    """The composed entries differentiate as torch's functions do."""
    torch, ms = fw
    x = np.array([0.2796, 0.9331, 0.6486], np.float32)
    y = np.array([0.5, 2.0, 3.0], np.float32)
    tx, ty = torch.tensor(x, requires_grad=True), torch.tensor(y, requires_grad=True)
    (torch.special.logit(tx, eps=1e-6) + torch.special.xlogy(tx, ty)).sum().backward()

    def loss(a, b):
        return (aux.special_logit(a, eps=1e-6) + aux.special_xlogy(a, b)).sum()

    ga, gb = ms.grad(loss, grad_position=(0, 1))(ms.Tensor(x), ms.Tensor(y))
    np.testing.assert_allclose(ga.asnumpy(), tx.grad.numpy(), rtol=1e-5)
    np.testing.assert_allclose(gb.asnumpy(), ty.grad.numpy(), rtol=1e-5)


# -- torch.linalg -------------------------------------------------------------------------------
L = "torch.linalg."
A3 = Arr(f32(3, 3, seed=4))
B23 = Arr(f32(2, 3, 3, seed=5))
LINALG = [
    (L + "cholesky", (Arr(spd(3)),), {}, ()),
    (L + "cholesky", (Arr(spd(3, (2,))),), {"upper": True}, ()),
    (L + "cholesky_ex", (Arr(spd(3)),), {}, ()),
    (L + "qr", (Arr(f32(4, 3)),), {}, ()),
    (L + "qr", (Arr(f32(4, 3)),), {"mode": "complete"}, ()),
    (L + "qr", (Arr(f32(4, 3)),), {"mode": "r"}, ()),
    (L + "det", (B23,), {}, ()),
    (L + "slogdet", (A3,), {}, ()),
    (L + "inv", (Arr(spd(3)),), {}, ()),
    (L + "eigh", (Arr(spd(3, (2,))),), {}, (1,)),
    (L + "eigh", (Arr(f32(3, 3, seed=6)),), {"UPLO": "U"}, (1,)),
    (L + "eigvalsh", (Arr(f32(3, 3, seed=6)),), {}, ()),
    (L + "svd", (Arr(f32(4, 3)),), {"full_matrices": False}, (0, 2)),
    (L + "svdvals", (B23,), {}, ()),
    (L + "matrix_rank", (Arr(np.array([[1.0, 2.0], [2.0, 4.0]], np.float32)),), {}, ()),
    (L + "matrix_rank", (B23,), {"atol": 1.0, "rtol": 0.0, "hermitian": True}, ()),
    (L + "matrix_rank", (B23, Arr(np.float32(1.0)), True), {}, ()),
    (L + "vector_norm", (Arr(f32(2, 3)),), {}, ()),
    (L + "vector_norm", (Arr(f32(2, 3)), math.inf, 1, True), {}, ()),
    (L + "vector_norm", (Arr(f32(2, 3)), 3), {"dtype": DType("float64")}, ()),
    (L + "vector_norm", (Arr(f32(2, 3)), 0, (0, 1)), {}, ()),
    (L + "matrix_norm", (B23,), {}, ()),
    (L + "matrix_norm", (B23, "nuc"), {}, ()),
    (L + "matrix_norm", (B23, 1, (0, 2)), {"keepdim": True}, ()),
    (L + "matrix_norm", (B23, -math.inf), {}, ()),
    (L + "matrix_norm", (B23, 2), {"keepdim": True}, ()),
    (L + "norm", (Arr(f32(2, 3)),), {}, ()),
    (L + "norm", (A3, "fro"), {}, ()),
    (L + "norm", (A3, math.inf), {}, ()),
    (L + "norm", (Arr(f32(2, 3)), 1, 1), {}, ()),
    (L + "cond", (A3,), {}, ()),
    (L + "cond", (A3, "fro"), {}, ()),
    (L + "cond", (A3, -2), {}, ()),
    (L + "cond", (A3, math.inf), {}, ()),
    (L + "householder_product", (Arr(f32(4, 3)), Arr(f32(3, seed=2))), {}, ()),
    (L + "lu", (B23,), {}, ()),
    (L + "lu_factor", (A3,), {}, ()),
    (
        L + "solve_triangular",
        (Arr(np.triu(spd(3))), Arr(f32(3, 2))),
        {"upper": True},
        (),
    ),
    (
        L + "solve_triangular",
        (Arr(np.tril(spd(3))), Arr(f32(2, 3))),
        {"upper": False, "left": False, "unitriangular": True},
        (),
    ),
    (L + "solve", (Arr(spd(3)), Arr(f32(3))), {}, ()),
    (L + "solve", (Arr(spd(3, (2,))), Arr(f32(2, 3, 2))), {"left": True}, ()),
    (L + "matrix_exp", (A3,), {}, ()),
    (L + "matrix_power", (Arr(spd(3)), -2), {}, ()),
    (L + "matrix_power", (A3, 5), {}, ()),
    (L + "multi_dot", ([Arr(f32(3)), Arr(f32(3, 4)), Arr(f32(4))],), {}, ()),
    (L + "vander", (Arr(np.array([1, 2, 3, 5])),), {"N": 3}, ()),
    (L + "vander", (Arr(f32(2, 3)),), {}, ()),
    (L + "vecdot", (Arr(c64(2, 3)), Arr(c64(2, 3, seed=1))), {}, ()),
    (L + "vecdot", (Arr(f32(2, 3)), Arr(f32(2, 3, seed=1))), {"dim": 0}, ()),
    (L + "cross", (Arr(f32(2, 3)), Arr(f32(1, 3, seed=1))), {}, ()),
    (L + "diagonal", (B23,), {"offset": 1}, ()),
    (L + "pinv", (Arr(f32(4, 3)),), {}, ()),
    (L + "pinv", (Arr(f32(4, 3)), 0.5), {}, ()),
    (L + "pinv", (Arr(spd(3)),), {"atol": 0.5, "hermitian": True}, ()),
    (L + "lu_factor_ex", (B23,), {}, ()),
    (L + "tensorinv", (Arr(spd(6).reshape(6, 2, 3)),), {"ind": 1}, ()),
    (L + "tensorsolve", (Arr(spd(6).reshape(2, 3, 6)), Arr(f32(2, 3))), {}, ()),
    (
        L + "tensorsolve",
        (Arr(spd(6).reshape(6, 2, 3)), Arr(f32(2, 3))),
        {"dims": (0,)},
        (),
    ),
    (L + "solve_ex", (Arr(spd(3)), Arr(f32(3, 2))), {}, ()),
    (L + "inv_ex", (Arr(spd(3)),), {}, ()),
    ("torch.complex", (Arr(f32(2, 3)), Arr(f32(2, 3, seed=1))), {}, ()),
    ("torch.svd", (Arr(f32(5, 3)),), {}, (0, 2)),
    ("torch.svd", (Arr(f32(5, 3)),), {"compute_uv": False}, ()),
    ("torch.lu", (B23,), {"get_infos": True}, ()),
    ("torch.pinverse", (Arr(f32(4, 3)), 1e-13), {}, ()),
    ("torch.cholesky_solve", (Arr(f32(3, 2)), Arr(np.linalg.cholesky(spd(3)))), {}, ()),
    ("torch.geqrf", (Arr(f32(4, 3)),), {}, ()),
    ("torch.vander", (Arr(np.array([1, 2, 3, 5])), 3), {}, ()),
    ("torch.vander", (Arr(f32(4)),), {"N": 5, "increasing": True}, ()),
    ("torch.view_as_complex", (Arr(f32(2, 3, 2).astype(np.float64)),), {}, ()),
]


@pytest.mark.parametrize(("name", "args", "kwargs", "absolute"), LINALG)
def test_linalg(fw, aux, name, args, kwargs, absolute) -> None:
    run(fw, aux, name, args, kwargs, absolute, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve(fw, aux, left, adjoint) -> None:
    torch, ms = fw
    a, b = f32(2, 3, 3, seed=7), f32(2, 3, 3, seed=8)
    LU, pivots = torch.linalg.lu_factor(torch.tensor(a))
    want = torch.linalg.lu_solve(
        LU, pivots, torch.tensor(b), left=left, adjoint=adjoint
    )
    m_lu, m_pivots = aux.linalg_lu_factor(ms.Tensor(a))
    got = aux.linalg_lu_solve(m_lu, m_pivots, ms.Tensor(b), left=left, adjoint=adjoint)
    np.testing.assert_allclose(got.asnumpy(), want.numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(("left", "transpose"), [(True, False), (False, True)])
def test_ormqr(fw, aux, left, transpose) -> None:
    torch, ms = fw
    a = f32(4, 3)
    other = f32(4, 2, seed=1) if left else f32(2, 4, seed=1)
    reflectors, tau = torch.geqrf(torch.tensor(a))
    want = torch.ormqr(reflectors, tau, torch.tensor(other), left, transpose)
    m_reflectors, m_tau = aux.geqrf(ms.Tensor(a))
    got = aux.ormqr(m_reflectors, m_tau, ms.Tensor(other), left, transpose)
    np.testing.assert_allclose(got.asnumpy(), want.numpy(), rtol=1e-4, atol=1e-5)


def test_lstsq_solution_and_rank(fw, aux) -> None:
    torch, ms = fw
    a, b = f32(5, 3).astype(np.float64), f32(5, 2, seed=1).astype(np.float64)
    want = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b))
    got = aux.linalg_lstsq(ms.Tensor(a), ms.Tensor(b))
    np.testing.assert_allclose(got.solution.asnumpy(), want.solution.numpy(), rtol=1e-8)
    assert int(got.rank.asnumpy()) == int(want.rank)
    assert got.residuals.shape == tuple(want.residuals.shape)


def test_named_results_and_out_tuples(fw, aux) -> None:
    torch, ms = fw
    a = spd(3)
    want = torch.linalg.eigh(torch.tensor(a))
    out = (ms.tensor([]), ms.tensor([]))
    got = aux.linalg_eigh(ms.Tensor(a), out=out)
    assert got.eigenvalues is out[0] and got.eigenvectors is out[1]
    np.testing.assert_allclose(
        out[0].asnumpy(), want.eigenvalues.numpy(), rtol=1e-5, atol=1e-5
    )
    _sign, logabsdet = aux.linalg_slogdet(ms.Tensor(a))
    np.testing.assert_allclose(
        logabsdet.asnumpy(),
        torch.linalg.slogdet(torch.tensor(a)).logabsdet.numpy(),
        rtol=1e-5,
    )


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_gradient(fw, aux, upper) -> None:
    """MindSpore has no CPU kernel for Cholesky's gradient; the entry composes it."""
    torch, ms = fw
    a, weight = spd(3, (2,)), f32(2, 3, 3, seed=9)
    t = torch.tensor(a, requires_grad=True)
    (torch.linalg.cholesky(t, upper=upper) * torch.tensor(weight)).sum().backward()

    def loss(x):
        return (aux.linalg_cholesky(x, upper=upper) * ms.Tensor(weight)).sum()

    got = ms.grad(loss)(ms.Tensor(a))
    np.testing.assert_allclose(got.asnumpy(), t.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_inverse_error_function_gradients(fw, aux) -> None:
    """erfinv and ndtri are refined by Newton steps; their gradients stay torch's, at the
    centre and in the tails too."""
    torch, ms = fw
    p = np.array([0.001, 0.3, 0.5, 0.9999], np.float32)
    for name in ("erfinv", "ndtri"):
        values = 2 * p - 1 if name == "erfinv" else p
        t = torch.tensor(values, requires_grad=True)
        getattr(torch.special, name)(t).sum().backward()
        entry = getattr(aux, "special_" + name)
        got = ms.grad(lambda a, entry=entry: entry(a).sum())(ms.Tensor(values))
        np.testing.assert_allclose(
            got.asnumpy(), t.grad.numpy(), rtol=1e-4, err_msg=name
        )
