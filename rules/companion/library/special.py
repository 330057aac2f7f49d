"""`torch.special`, with torch's arguments: Python numbers and integer tensors are promoted to
torch's floating result dtype (float32 unless a float64 tensor takes part), and `out=` is written.
Each function is a MindSpore operator with a CPU kernel or is composed from them."""

import math

import mindspore
from mindspore import ops

from .outputs import _result_into

_FLOAT_ORDER = (
    mindspore.float16,
    mindspore.bfloat16,
    mindspore.float32,
    mindspore.float64,
)


def _special_floats(*values):
    """The values as tensors of torch's floating result dtype for a special function."""
    floats = [
        v.dtype
        for v in values
        if isinstance(v, mindspore.Tensor) and v.dtype in _FLOAT_ORDER
    ]
    dtype = max(floats, key=_FLOAT_ORDER.index) if floats else mindspore.float32
    return [
        v.astype(dtype)
        if isinstance(v, mindspore.Tensor)
        else mindspore.tensor(v, dtype)
        for v in values
    ]


def _special_unary(operator):
    """`operator` on one promoted tensor, with torch's keyword-only `out=`."""

    def call(input, *, out=None):
        (x,) = _special_floats(input)
        return _result_into(out, operator(x))

    return call


special_erf = _special_unary(ops.erf)
special_erfc = _special_unary(ops.erfc)
special_exp2 = _special_unary(ops.exp2)
special_expm1 = _special_unary(ops.expm1)
special_log1p = _special_unary(ops.log1p)
special_expit = _special_unary(ops.sigmoid)
special_sinc = _special_unary(ops.sinc)
special_digamma = _special_unary(ops.digamma)
special_psi = special_digamma
special_gammaln = _special_unary(ops.lgamma)
special_i0 = _special_unary(ops.bessel_i0)
special_i0e = _special_unary(ops.bessel_i0e)
special_i1 = _special_unary(ops.bessel_i1)
special_i1e = _special_unary(ops.bessel_i1e)
special_bessel_j0 = _special_unary(ops.bessel_j0)
special_bessel_j1 = _special_unary(ops.bessel_j1)


def _erfinv_float64(x):
    """erfinv of a float64 tensor: Giles' single-precision approximation (odd in x), refined by
    two Newton steps on erfc, accurate in both tails (MindSpore's erfinv kernel loses digits
    beyond |x| = 0.99)."""
    inside = ops.abs(x) < 1.0
    safe = ops.where(inside, x, ops.zeros_like(x))
    w = -ops.log((1.0 - safe) * (1.0 + safe))
    central = w - 2.5
    p = 2.81022636e-08
    for c in (
        3.43273939e-07,
        -3.5233877e-06,
        -4.39150654e-06,
        0.00021858087,
        -0.00125372503,
        -0.00417768164,
        0.246640727,
        1.50140941,
    ):
        p = c + p * central
    # sqrt only where the tail branch is taken, so that its gradient stays finite elsewhere
    tail = ops.sqrt(ops.maximum(w, ops.full_like(w, 5.0))) - 3.0
    q = -0.000200214257
    for c in (
        0.000100950558,
        0.00134934322,
        -0.00367342844,
        0.00573950773,
        -0.0076224613,
        0.00943887047,
        1.00167406,
        2.83297682,
    ):
        q = c + q * tail
    y = ops.where(w < 5.0, p, q) * safe
    for _ in range(2):
        # erf(y) - x, from erfc on the side of x's sign
        residual = ops.where(
            safe >= 0, (1.0 - safe) - ops.erfc(y), ops.erfc(-y) - (1.0 + safe)
        )
        y = y - residual / (2.0 / math.sqrt(math.pi) * ops.exp(-y * y))
    y = ops.where(inside, y, ops.full_like(y, math.nan))
    y = ops.where(x == 1.0, ops.full_like(y, math.inf), y)
    return ops.where(x == -1.0, ops.full_like(y, -math.inf), y)


def special_erfinv(input, *, out=None):
    """`torch.special.erfinv`: the inverse of erf, to float32 precision up to |x| = 1."""
    (x,) = _special_floats(input)
    return _result_into(
        out, _erfinv_float64(x.astype(mindspore.float64)).astype(x.dtype)
    )


def special_ndtr(input, *, out=None):
    """`torch.special.ndtr`: the standard normal CDF, erfc(-x / sqrt(2)) / 2."""
    (x,) = _special_floats(input)
    return _result_into(out, 0.5 * ops.erfc(-x / math.sqrt(2.0)))


def special_ndtri(input, *, out=None):
    """`torch.special.ndtri`: the inverse of the standard normal CDF, sqrt(2) erfinv(2p - 1)."""
    (x,) = _special_floats(input)
    p = x.astype(mindspore.float64)
    return _result_into(
        out, (math.sqrt(2.0) * _erfinv_float64(2.0 * p - 1.0)).astype(x.dtype)
    )


def special_log_ndtr(input, *, out=None):
    """`torch.special.log_ndtr`: log of the standard normal CDF (computed in float64; it
    underflows to -inf below x = -38, where torch's asymptotic form stays finite)."""
    (x,) = _special_floats(input)
    wide = x.astype(mindspore.float64)
    result = ops.log(0.5 * ops.erfc(-wide / math.sqrt(2.0)))
    return _result_into(out, result.astype(x.dtype))


def special_erfcx(input, *, out=None):
    """`torch.special.erfcx`: exp(x^2) erfc(x), in float64, with the asymptotic series where
    erfc underflows (x > 25)."""
    (x,) = _special_floats(input)
    wide = x.astype(mindspore.float64)
    near = ops.minimum(wide, ops.full_like(wide, 25.0))
    direct = ops.exp(near * near) * ops.erfc(near)
    far = ops.maximum(wide, ops.full_like(wide, 25.0))
    inverse_square = 1.0 / (far * far)
    series = (1.0 - 0.5 * inverse_square * (1.0 - 1.5 * inverse_square)) / (
        far * math.sqrt(math.pi)
    )
    return _result_into(out, ops.where(wide > 25.0, series, direct).astype(x.dtype))


def special_entr(input, *, out=None):
    """`torch.special.entr`: -x log(x), 0 at 0, -inf below 0."""
    (x,) = _special_floats(input)
    safe = ops.where(x > 0, x, ops.ones_like(x))
    result = ops.where(x > 0, -x * ops.log(safe), ops.zeros_like(x))
    result = ops.where(x < 0, ops.full_like(x, -math.inf), result)
    result = ops.where(ops.isnan(x), x, result)
    return _result_into(out, result)


def special_logit(input, eps=None, *, out=None):
    """`torch.special.logit`: log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps is given."""
    (x,) = _special_floats(input)
    if eps is not None:
        x = ops.clamp(x, eps, 1.0 - eps)
    return _result_into(out, ops.log(x / (1.0 - x)))


def _x_times(input, other, log_function):
    x, y = _special_floats(input, other)
    x, y = x + ops.zeros_like(y), y + ops.zeros_like(x)  # broadcast to one shape
    safe = ops.where(x == 0, ops.ones_like(y), y)
    result = ops.where(x == 0, ops.zeros_like(x), x * log_function(safe))
    return ops.where(ops.isnan(y), y, result)


def special_xlogy(input, other, *, out=None):
    """`torch.special.xlogy`: x log(y), 0 where x is 0 (unless y is NaN)."""
    return _result_into(out, _x_times(input, other, ops.log))


def special_xlog1py(input, other, *, out=None):
    """`torch.special.xlog1py`: x log1p(y), 0 where x is 0 (unless y is NaN)."""
    return _result_into(out, _x_times(input, other, ops.log1p))


def special_zeta(input, other, *, out=None):
    """`torch.special.zeta`: the Hurwitz zeta function."""
    x, q = _special_floats(input, other)
    return _result_into(out, ops.zeta(x, q))


def special_gammainc(input, other, *, out=None):
    """`torch.special.gammainc`: the regularized lower incomplete gamma function."""
    a, x = _special_floats(input, other)
    return _result_into(out, ops.igamma(a, x))


def special_gammaincc(input, other, *, out=None):
    """`torch.special.gammaincc`: the regularized upper incomplete gamma function."""
    a, x = _special_floats(input, other)
    return _result_into(out, ops.igammac(a, x))


def special_polygamma(n, input, *, out=None):
    """`torch.special.polygamma`: the n-th derivative of digamma (MindSpore takes n as a tensor)."""
    (x,) = _special_floats(input)
    return _result_into(out, ops.polygamma(mindspore.tensor(n, mindspore.int64), x))


def special_multigammaln(input, p, *, out=None):
    """`torch.special.multigammaln`: the multivariate log-gamma function of dimension p."""
    (x,) = _special_floats(input)
    return _result_into(out, ops.mvlgamma(x, p))


def special_logsumexp(input, dim, keepdim=False, *, out=None):
    """`torch.special.logsumexp`."""
    (x,) = _special_floats(input)
    axis = tuple(dim) if isinstance(dim, (list, tuple)) else dim
    return _result_into(out, ops.logsumexp(x, axis, keepdim))


def special_softmax(input, dim, dtype=None):
    """`torch.special.softmax` (the input is cast to `dtype` first)."""
    x = input.astype(dtype) if dtype is not None else _special_floats(input)[0]
    return ops.softmax(x, axis=dim)


def special_log_softmax(input, dim, dtype=None):
    """`torch.special.log_softmax` (the input is cast to `dtype` first)."""
    x = input.astype(dtype) if dtype is not None else _special_floats(input)[0]
    # x - max - log(sum(exp(x - max))), torch's formula (MindSpore's kernel rounds differently).
    shifted = x - x.max(axis=dim, keepdims=True)
    return shifted - ops.log(ops.exp(shifted).sum(axis=dim, keepdims=True))


def special_round(input, *, decimals=0, out=None):
    """`torch.special.round`: half to even, at `decimals` places as torch scales them."""
    if decimals == 0:
        return _result_into(out, ops.round(input))
    scale = 10.0 ** abs(decimals)
    if decimals > 0:
        result = ops.round(input * scale) / scale
    else:
        result = ops.round(input / scale) * scale
    return _result_into(out, result)


def _special_positive(operator, at_zero):
    """`operator` where x > 0, torch's value at 0 (an infinity) and NaN below 0, where
    MindSpore's kernels give other values."""

    def call(input, *, out=None):
        (x,) = _special_floats(input)
        result = operator(x)
        result = ops.where(x == 0, ops.full_like(result, at_zero), result)
        result = ops.where(x < 0, ops.full_like(result, math.nan), result)
        return _result_into(out, result)

    return call


special_bessel_y0 = _special_positive(ops.bessel_y0, -math.inf)
special_bessel_y1 = _special_positive(ops.bessel_y1, -math.inf)
special_modified_bessel_i0 = _special_unary(ops.bessel_i0)
special_modified_bessel_i1 = _special_unary(ops.bessel_i1)
special_modified_bessel_k0 = _special_positive(ops.bessel_k0, math.inf)
special_modified_bessel_k1 = _special_positive(ops.bessel_k1, math.inf)
special_scaled_modified_bessel_k0 = _special_positive(ops.bessel_k0e, math.inf)
special_scaled_modified_bessel_k1 = _special_positive(ops.bessel_k1e, math.inf)


def special_spherical_bessel_j0(input, *, out=None):
    """`torch.special.spherical_bessel_j0`: sin(x) / x, 1 at 0."""
    (x,) = _special_floats(input)
    safe = ops.where(x == 0, ops.ones_like(x), x)
    return _result_into(out, ops.where(x == 0, ops.ones_like(x), ops.sin(safe) / safe))


def _polynomial(input, n, first, step, shift=False):
    """A classical orthogonal polynomial of degree n (a number or a tensor of degrees) by its
    three-term recurrence: p_0 = 1, p_1 = first(x), p_{k+1} = step(k, x, p_k, p_{k-1});
    0 for a negative degree, as torch's."""
    x, degree = _special_floats(input, n)
    if shift:
        x = 2.0 * x - 1.0
    x, degree = x + ops.zeros_like(degree), degree + ops.zeros_like(x)
    highest = int(degree.max().asnumpy()) if degree.size else 0
    previous, current = ops.ones_like(x), first(x)
    result = ops.where(degree == 0, previous, ops.zeros_like(x))
    for k in range(1, highest + 1):
        result = ops.where(degree == k, current, result)
        previous, current = current, step(k, x, current, previous)
    return result


def _chebyshev(first, shift=False):
    def call(input, n, *, out=None):
        result = _polynomial(
            input, n, first, lambda k, x, p, q: 2.0 * x * p - q, shift=shift
        )
        return _result_into(out, result)

    return call


special_chebyshev_polynomial_t = _chebyshev(lambda x: x)
special_chebyshev_polynomial_u = _chebyshev(lambda x: 2.0 * x)
special_chebyshev_polynomial_v = _chebyshev(lambda x: 2.0 * x - 1.0)
special_chebyshev_polynomial_w = _chebyshev(lambda x: 2.0 * x + 1.0)
special_shifted_chebyshev_polynomial_t = _chebyshev(lambda x: x, shift=True)
special_shifted_chebyshev_polynomial_u = _chebyshev(lambda x: 2.0 * x, shift=True)
special_shifted_chebyshev_polynomial_v = _chebyshev(lambda x: 2.0 * x - 1.0, shift=True)
special_shifted_chebyshev_polynomial_w = _chebyshev(lambda x: 2.0 * x + 1.0, shift=True)


def special_hermite_polynomial_h(input, n, *, out=None):
    """`torch.special.hermite_polynomial_h` (physicists' Hermite polynomials)."""
    result = _polynomial(
        input, n, lambda x: 2.0 * x, lambda k, x, p, q: 2.0 * x * p - 2.0 * k * q
    )
    return _result_into(out, result)


def special_hermite_polynomial_he(input, n, *, out=None):
    """`torch.special.hermite_polynomial_he` (probabilists' Hermite polynomials)."""
    result = _polynomial(input, n, lambda x: x, lambda k, x, p, q: x * p - k * q)
    return _result_into(out, result)


def special_laguerre_polynomial_l(input, n, *, out=None):
    """`torch.special.laguerre_polynomial_l`."""
    result = _polynomial(
        input,
        n,
        lambda x: 1.0 - x,
        lambda k, x, p, q: ((2 * k + 1 - x) * p - k * q) / (k + 1),
    )
    return _result_into(out, result)


def special_legendre_polynomial_p(input, n, *, out=None):
    """`torch.special.legendre_polynomial_p`."""
    result = _polynomial(
        input,
        n,
        lambda x: x,
        lambda k, x, p, q: ((2 * k + 1) * x * p - k * q) / (k + 1),
    )
    return _result_into(out, result)
