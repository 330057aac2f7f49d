"""torch.distributions transforms, the KL divergences torch registers, and the constraints that
user code calls, on MindSpore."""

import math

import mindspore
import numpy as np
from mindspore import ops


def _tiny_eps(dtype):
    info = np.finfo(mindspore.dtype_to_nptype(dtype))
    return float(info.tiny), float(info.eps)


class Transform:
    """An invertible map: ``t(x)``, ``t.inv(y)``, shapes and the log-Jacobian."""

    bijective = False
    event_dim = 0

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size

    def __call__(self, x):
        return self._call(x)

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    @property
    def inv(self):
        return _InverseTransform(self)

    def log_abs_det_jacobian(self, x, y):
        raise NotImplementedError

    def forward_shape(self, shape):
        return shape

    def inverse_shape(self, shape):
        return shape

    def __repr__(self):
        return type(self).__name__ + "()"


class _InverseTransform(Transform):
    def __init__(self, transform):
        super().__init__(transform._cache_size)
        self._inv = transform

    @property
    def inv(self):
        return self._inv

    def __call__(self, x):
        return self._inv._inverse(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)


class ExpTransform(Transform):
    bijective = True

    def _call(self, x):
        return ops.exp(x)

    def _inverse(self, y):
        return ops.log(y)

    def log_abs_det_jacobian(self, x, y):
        return x


class PowerTransform(Transform):
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size)
        self.exponent = exponent

    def _call(self, x):
        return ops.pow(x, self.exponent)

    def _inverse(self, y):
        return ops.pow(y, 1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return ops.log(ops.abs(self.exponent * y / x))


class SigmoidTransform(Transform):
    bijective = True

    def _call(self, x):
        tiny, eps = _tiny_eps(x.dtype)
        return ops.clamp(ops.sigmoid(x), tiny, 1.0 - eps)

    def _inverse(self, y):
        tiny, eps = _tiny_eps(y.dtype)
        y = ops.clamp(y, tiny, 1.0 - eps)
        return ops.log(y) - ops.log1p(-y)

    def log_abs_det_jacobian(self, x, y):
        return -ops.softplus(-x) - ops.softplus(x)


class TanhTransform(Transform):
    bijective = True

    def _call(self, x):
        return ops.tanh(x)

    def _inverse(self, y):
        return ops.atanh(y)

    def log_abs_det_jacobian(self, x, y):
        return 2.0 * (math.log(2.0) - x - ops.softplus(-2.0 * x))


class SoftplusTransform(Transform):
    bijective = True

    def _call(self, x):
        return ops.softplus(x)

    def _inverse(self, y):
        return ops.log(-ops.expm1(-y)) + y

    def log_abs_det_jacobian(self, x, y):
        return -ops.softplus(-x)


class AbsTransform(Transform):
    def _call(self, x):
        return ops.abs(x)

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size)
        self.loc, self.scale, self.event_dim = loc, scale, event_dim

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale


class SoftmaxTransform(Transform):
    event_dim = 1

    def _call(self, x):
        probs = ops.exp(x - x.max(-1, keepdims=True))
        return probs / probs.sum(-1, keepdims=True)

    def _inverse(self, y):
        return ops.log(y)

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape

    def inverse_shape(self, shape):
        return self.forward_shape(shape)


class _LowerCholesky(Transform):
    event_dim = 2

    def _call(self, x):
        return ops.tril(x, -1) + ops.diag_embed(ops.exp(ops.diagonal(x, 0, -2, -1)))

    def _inverse(self, y):
        return ops.tril(y, -1) + ops.diag_embed(ops.log(ops.diagonal(y, 0, -2, -1)))


LowerCholeskyTransform = _LowerCholesky


class PositiveDefiniteTransform(Transform):
    event_dim = 2

    def _call(self, x):
        x = _LowerCholesky()(x)
        return ops.matmul(x, x.swapaxes(-1, -2))

    def _inverse(self, y):
        return _LowerCholesky()._inverse(ops.cholesky(y))


class ReshapeTransform(Transform):
    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape = tuple(int(s) for s in in_shape)
        self.out_shape = tuple(int(s) for s in out_shape)
        if int(np.prod(self.in_shape)) != int(np.prod(self.out_shape)):
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size)

    def _call(self, x):
        batch = tuple(x.shape)[: x.ndim - len(self.in_shape)]
        return x.reshape(batch + self.out_shape)

    def _inverse(self, y):
        batch = tuple(y.shape)[: y.ndim - len(self.out_shape)]
        return y.reshape(batch + self.in_shape)

    def _moved(self, shape, have, want):
        if len(shape) < len(have):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(have)
        if tuple(shape[cut:]) != have:
            raise ValueError(
                f"Shape mismatch: expected {tuple(shape[cut:])} but got {have}"
            )
        return tuple(shape[:cut]) + want

    def forward_shape(self, shape):
        return self._moved(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return self._moved(shape, self.out_shape, self.in_shape)


class IndependentTransform(Transform):
    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size)
        self.base_transform = base_transform
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def _call(self, x):
        return self.base_transform(x)

    def _inverse(self, y):
        return self.base_transform.inv(y)

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)


class ComposeTransform(Transform):
    def __init__(self, parts, cache_size=0):
        super().__init__(cache_size)
        self.parts = list(parts)

    def _call(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def _inverse(self, y):
        for part in reversed(self.parts):
            y = part.inv(y)
        return y

    def forward_shape(self, shape):
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape


class _PiecewiseTransform(Transform):
    """Each transform of ``tseq`` applied to its own piece of ``x`` along ``dim``."""

    def __init__(self, tseq, dim=0, cache_size=0):
        super().__init__(cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def _apply(self, x, inverse):
        pieces = self._pieces(x)
        done = [(t.inv if inverse else t)(p) for t, p in zip(self.transforms, pieces)]
        return self._joined(done)

    def _call(self, x):
        return self._apply(x, False)

    def _inverse(self, y):
        return self._apply(y, True)


class CatTransform(_PiecewiseTransform):
    """Pieces of ``lengths`` along ``dim``, concatenated again."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        super().__init__(tseq, dim, cache_size)
        self.lengths = [1] * len(self.transforms) if lengths is None else list(lengths)

    def _pieces(self, x):
        return ops.split(x, self.lengths, self.dim)

    def _joined(self, pieces):
        return ops.cat(pieces, self.dim)


class StackTransform(_PiecewiseTransform):
    """Slices along ``dim``, stacked again."""

    def _pieces(self, x):
        return ops.unbind(x, self.dim)

    def _joined(self, pieces):
        return ops.stack(pieces, self.dim)


class CumulativeDistributionTransform(Transform):
    bijective = True

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size)
        self.distribution = distribution

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)


def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale) ** 2
    t1 = ((p.loc - q.loc) / q.scale) ** 2
    return 0.5 * (var_ratio + t1 - 1 - ops.log(var_ratio))


def _kl_beta_beta(p, q):
    sum_p = p.concentration1 + p.concentration0
    sum_q = q.concentration1 + q.concentration0
    t1 = ops.lgamma(q.concentration1) + ops.lgamma(q.concentration0) + ops.lgamma(sum_p)
    t2 = ops.lgamma(p.concentration1) + ops.lgamma(p.concentration0) + ops.lgamma(sum_q)
    t3 = (p.concentration1 - q.concentration1) * ops.digamma(p.concentration1)
    t4 = (p.concentration0 - q.concentration0) * ops.digamma(p.concentration0)
    t5 = (sum_q - sum_p) * ops.digamma(sum_p)
    return t1 - t2 + t3 + t4 + t5


def _kl_gamma_gamma(p, q):
    t1 = q.concentration * ops.log(p.rate / q.rate)
    t2 = ops.lgamma(q.concentration) - ops.lgamma(p.concentration)
    t3 = (p.concentration - q.concentration) * ops.digamma(p.concentration)
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


def _kl_exponential_exponential(p, q):
    ratio = q.rate / p.rate
    return -ops.log(ratio) + ratio - 1


def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = ops.where(q.probs == 0, ops.full_like(t, float("inf")), t)
    t = ops.where(p.probs == 0, ops.zeros_like(t), t)
    return t.sum(-1)


def _kl_bernoulli_bernoulli(p, q):
    t1 = p.probs * (ops.softplus(-q.logits) - ops.softplus(-p.logits))
    t2 = (1 - p.probs) * (ops.softplus(q.logits) - ops.softplus(p.logits))
    return t1 + t2


def _kl_uniform_uniform(p, q):
    result = ops.log((q.high - q.low) / (p.high - p.low))
    outside = ops.logical_or(q.low > p.low, q.high < p.high)
    return ops.where(outside, ops.full_like(result, float("inf")), result)


def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    loc_abs_diff = ops.abs(p.loc - q.loc)
    t1 = -ops.log(scale_ratio)
    t2 = loc_abs_diff / q.scale
    t3 = scale_ratio * ops.exp(-loc_abs_diff / p.scale)
    return t1 + t2 + t3 - 1


def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return p._sum_rightmost(kl_divergence(p.base_dist, q.base_dist))


_KL = {
    ("Normal", "Normal"): _kl_normal_normal,
    ("Beta", "Beta"): _kl_beta_beta,
    ("Gamma", "Gamma"): _kl_gamma_gamma,
    ("Chi2", "Chi2"): _kl_gamma_gamma,
    ("Exponential", "Exponential"): _kl_exponential_exponential,
    ("Categorical", "Categorical"): _kl_categorical_categorical,
    ("Bernoulli", "Bernoulli"): _kl_bernoulli_bernoulli,
    ("Uniform", "Uniform"): _kl_uniform_uniform,
    ("Laplace", "Laplace"): _kl_laplace_laplace,
    ("Independent", "Independent"): _kl_independent_independent,
}


def kl_divergence(p, q):
    """KL(p || q) for the pairs torch registers in closed form, found by the classes' names
    along their base classes (a subclass uses its base's formula, as torch's registry does)."""
    for p_type in type(p).__mro__:
        for q_type in type(q).__mro__:
            rule = _KL.get((p_type.__name__, q_type.__name__))
            if rule is not None:
                return rule(p, q)
    raise NotImplementedError(
        f"No KL(p || q) is implemented for p={type(p).__name__}, q={type(q).__name__}"
    )


class _PositiveDefinite:
    """``constraints.positive_definite``: symmetric, and every eigenvalue positive."""

    event_dim = 2

    def check(self, value):
        if value.shape[-2] != value.shape[-1]:
            return False
        symmetric = (
            ops.isclose(value, value.swapaxes(-1, -2), atol=1e-6).all(-1).all(-1)
        )
        if not bool(symmetric.all()):
            return symmetric
        eigenvalues = ops.real(ops.eigvals(value))
        return (eigenvalues > 0).all(-1)


positive_definite = _PositiveDefinite()
