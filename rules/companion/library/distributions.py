"""torch.distributions on MindSpore: the same constructors, shapes, densities and moments.

Parameters are broadcast together as torch's ``broadcast_all`` does (Python numbers become
float32 tensors). Samples have torch's shapes and dtypes; their values come from MindSpore's
generators, so they follow MindSpore's seed, not torch's stream. ``sample`` is ``rsample`` with the
gradient stopped where a reparameterised draw exists.
"""

import math

import mindspore
import numpy as np
from mindspore import ops


def _as_shape(shape):
    if shape is None:
        return ()
    if isinstance(shape, int):
        return (shape,)
    return tuple(int(s) for s in shape)


def _broadcast_all(*values):
    """Tensors of one float dtype and one shape; Python numbers take the tensors' dtype (float32
    when every value is a number)."""
    tensors = [v for v in values if isinstance(v, mindspore.Tensor)]
    dtype = tensors[0].dtype if tensors else mindspore.float32
    if not ops.is_floating_point(ops.zeros((), dtype)):
        dtype = mindspore.float32
    values = [
        v.astype(dtype)
        if isinstance(v, mindspore.Tensor)
        else mindspore.Tensor(v, dtype)
        for v in values
    ]
    shape = np.broadcast_shapes(*(tuple(v.shape) for v in values))
    return [
        ops.broadcast_to(v, shape) if tuple(v.shape) != shape else v for v in values
    ]


def _finfo(dtype):
    return np.finfo(mindspore.dtype_to_nptype(dtype))


def _clamp_probs(probs):
    eps = float(_finfo(probs.dtype).eps)
    return ops.clamp(probs, eps, 1 - eps)


def _uniform_draws(shape, dtype, low=0.0):
    """Uniform draws in [low, 1) of ``shape`` (a 0-d draw for ``()``)."""
    u = ops.rand(shape if shape else ()).astype(dtype)
    return u if low == 0.0 else low + (1 - low) * u


def _standard_gamma(concentration, sample_shape):
    """Gamma(concentration, 1) draws of shape ``sample_shape + concentration.shape``."""
    count = max(1, int(np.prod(sample_shape)))
    shape = mindspore.Tensor(np.array([count]), mindspore.int64)
    draws = ops.random_gamma(shape, concentration.astype(mindspore.float32))
    draws = draws.reshape(tuple(sample_shape) + tuple(concentration.shape))
    tiny = float(_finfo(concentration.dtype).tiny)
    return ops.clamp(draws.astype(concentration.dtype), min=tiny)


class Distribution:
    """The base class: shapes, ``sample`` through ``rsample``, and derived moments."""

    has_rsample = False
    has_enumerate_support = False
    support = None

    @property
    def arg_constraints(self):
        """torch's base names no constraints: each distribution declares its parameters'."""
        raise NotImplementedError

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape = _as_shape(batch_shape)
        self._event_shape = _as_shape(event_shape)
        self._validate_args = validate_args

    def __repr__(self):
        """torch's form: the class name, then each parameter named in `arg_constraints` that the
        object holds, by its value when it has one element, else by its shape. The base and a
        subclass that declares no constraints raise, as torch's do; the companion's own
        distributions print no parameters."""
        try:
            constraints = self.arg_constraints
        except NotImplementedError:
            own = type(self).__module__ == Distribution.__module__
            if type(self) is Distribution or not own:
                raise
            constraints = {}
        shown = []
        for name in constraints:
            if name in self.__dict__:
                value = self.__dict__[name]
                size = int(np.prod(value.shape))
                shown.append(f"{name}: {value if size == 1 else tuple(value.shape)}")
        return f"{type(self).__name__}({', '.join(shown)})"

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    def _extended_shape(self, sample_shape=()):
        return _as_shape(sample_shape) + self._batch_shape + self._event_shape

    def sample(self, sample_shape=()):
        return ops.stop_gradient(self.rsample(sample_shape))

    def rsample(self, sample_shape=()):
        raise NotImplementedError(
            f"{type(self).__name__} has no reparameterised sample (rsample)"
        )

    def sample_n(self, n):
        return self.sample((n,))

    def log_prob(self, value):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def perplexity(self):
        return ops.exp(self.entropy())

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def mode(self):
        raise NotImplementedError

    @property
    def variance(self):
        raise NotImplementedError

    @property
    def stddev(self):
        return ops.sqrt(self.variance)


class _LocScale(Distribution):
    """A family with a location and a scale broadcast together; its mean and mode are ``loc``."""

    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = _broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc


class Normal(_LocScale):
    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = ops.standard_normal(shape).astype(self.loc.dtype)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        var = self.scale**2
        return (
            -((value - self.loc) ** 2) / (2 * var)
            - ops.log(self.scale)
            - math.log(math.sqrt(2 * math.pi))
        )

    def cdf(self, value):
        return 0.5 * (1 + ops.erf((value - self.loc) / (self.scale * math.sqrt(2))))

    def icdf(self, value):
        return self.loc + self.scale * ops.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + ops.log(self.scale)

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.scale**2


class LogNormal(Distribution):
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.base_dist = Normal(loc, scale)
        self.loc, self.scale = self.base_dist.loc, self.base_dist.scale
        super().__init__(self.loc.shape, validate_args=validate_args)

    def rsample(self, sample_shape=()):
        return ops.exp(self.base_dist.rsample(sample_shape))

    def log_prob(self, value):
        log_value = ops.log(value)
        return self.base_dist.log_prob(log_value) - log_value

    def entropy(self):
        return self.base_dist.entropy() + self.loc

    @property
    def mean(self):
        return ops.exp(self.loc + self.scale**2 / 2)

    @property
    def mode(self):
        return ops.exp(self.loc - self.scale**2)

    @property
    def variance(self):
        s2 = self.scale**2
        return ops.expm1(s2) * ops.exp(2 * self.loc + s2)


class Cauchy(_LocScale):
    def rsample(self, sample_shape=()):
        u = _uniform_draws(self._extended_shape(sample_shape), self.loc.dtype)
        return self.loc + self.scale * ops.tan(math.pi * (u - 0.5))

    def log_prob(self, value):
        z = (value - self.loc) / self.scale
        return -math.log(math.pi) - ops.log(self.scale) - ops.log1p(z**2)

    def cdf(self, value):
        return ops.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return ops.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + ops.log(self.scale)

    @property
    def mean(self):
        return ops.full(self._extended_shape(), float("nan"), dtype=self.loc.dtype)

    @property
    def variance(self):
        return ops.full(self._extended_shape(), float("inf"), dtype=self.loc.dtype)


class Laplace(_LocScale):
    def rsample(self, sample_shape=()):
        eps = float(_finfo(self.loc.dtype).eps)
        u = _uniform_draws(self._extended_shape(sample_shape), self.loc.dtype)
        u = (eps - 1) + (2 - eps) * u
        return self.loc - self.scale * ops.sign(u) * ops.log1p(-ops.abs(u))

    def log_prob(self, value):
        return -ops.log(2 * self.scale) - ops.abs(value - self.loc) / self.scale

    def cdf(self, value):
        z = (value - self.loc) / self.scale
        return 0.5 - 0.5 * ops.sign(z) * ops.expm1(-ops.abs(z))

    def entropy(self):
        return 1 + ops.log(2 * self.scale)

    @property
    def variance(self):
        return 2 * self.scale**2


class Uniform(Distribution):
    has_rsample = True

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = _broadcast_all(low, high)
        super().__init__(self.low.shape, validate_args=validate_args)

    def rsample(self, sample_shape=()):
        u = _uniform_draws(self._extended_shape(sample_shape), self.low.dtype)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        inside = ops.logical_and(self.low <= value, self.high > value)
        return ops.log(inside.astype(self.low.dtype)) - ops.log(self.high - self.low)

    def cdf(self, value):
        return ops.clamp((value - self.low) / (self.high - self.low), 0.0, 1.0)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return ops.log(self.high - self.low)

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def variance(self):
        return (self.high - self.low) ** 2 / 12


class Exponential(Distribution):
    has_rsample = True

    def __init__(self, rate, validate_args=None):
        (self.rate,) = _broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    def rsample(self, sample_shape=()):
        tiny = float(_finfo(self.rate.dtype).tiny)
        u = _uniform_draws(
            self._extended_shape(sample_shape), self.rate.dtype, low=tiny
        )
        return -ops.log(u) / self.rate

    def log_prob(self, value):
        return ops.log(self.rate) - self.rate * value

    def cdf(self, value):
        return 1 - ops.exp(-self.rate * value)

    def icdf(self, value):
        return -ops.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - ops.log(self.rate)

    @property
    def mean(self):
        return 1 / self.rate

    @property
    def mode(self):
        return ops.zeros_like(self.rate)

    @property
    def variance(self):
        return self.rate ** (-2)


class Gamma(Distribution):
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = _broadcast_all(concentration, rate)
        super().__init__(self.concentration.shape, validate_args=validate_args)

    def rsample(self, sample_shape=()):
        draws = _standard_gamma(self.concentration, _as_shape(sample_shape))
        return draws / self.rate

    def log_prob(self, value):
        c, rate = self.concentration, self.rate
        return (
            ops.xlogy(c, rate) + ops.xlogy(c - 1, value) - rate * value - ops.lgamma(c)
        )

    def entropy(self):
        c = self.concentration
        return c - ops.log(self.rate) + ops.lgamma(c) + (1.0 - c) * ops.digamma(c)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ops.clamp((self.concentration - 1) / self.rate, min=0)

    @property
    def variance(self):
        return self.concentration / self.rate**2


class Chi2(Gamma):
    def __init__(self, df, validate_args=None):
        (df,) = _broadcast_all(df)
        super().__init__(0.5 * df, ops.full_like(df, 0.5), validate_args=validate_args)

    @property
    def df(self):
        return self.concentration * 2


class Dirichlet(Distribution):
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        (self.concentration,) = _broadcast_all(concentration)
        shape = tuple(self.concentration.shape)
        super().__init__(shape[:-1], shape[-1:], validate_args=validate_args)

    def rsample(self, sample_shape=()):
        draws = _standard_gamma(self.concentration, _as_shape(sample_shape))
        return draws / draws.sum(-1, keepdims=True)

    def log_prob(self, value):
        c = self.concentration
        return (
            ops.xlogy(c - 1.0, value).sum(-1)
            + ops.lgamma(c.sum(-1))
            - ops.lgamma(c).sum(-1)
        )

    def entropy(self):
        c = self.concentration
        k = c.shape[-1]
        total = c.sum(-1)
        return (
            ops.lgamma(c).sum(-1)
            - ops.lgamma(total)
            - (k - total) * ops.digamma(total)
            - ((c - 1.0) * ops.digamma(c)).sum(-1)
        )

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdims=True)

    @property
    def variance(self):
        c = self.concentration
        total = c.sum(-1, keepdims=True)
        return c * (total - c) / (total**2 * (total + 1))


class Beta(Distribution):
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        c1, c0 = _broadcast_all(concentration1, concentration0)
        self._dirichlet = Dirichlet(ops.stack([c1, c0], -1))
        super().__init__(self._dirichlet.batch_shape, validate_args=validate_args)

    @property
    def concentration1(self):
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self):
        return self._dirichlet.concentration[..., 1]

    def rsample(self, sample_shape=()):
        return self._dirichlet.rsample(sample_shape)[..., 0]

    def log_prob(self, value):
        return self._dirichlet.log_prob(ops.stack([value, 1.0 - value], -1))

    def entropy(self):
        return self._dirichlet.entropy()

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total**2 * (1 + total))


class StudentT(Distribution):
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = _broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.shape, validate_args=validate_args)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        x = ops.standard_normal(shape).astype(self.df.dtype)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * x * ops.rsqrt(z / self.df)

    def log_prob(self, value):
        y = (value - self.loc) / self.scale
        z = (
            ops.log(self.scale)
            + 0.5 * ops.log(self.df)
            + 0.5 * math.log(math.pi)
            + ops.lgamma(0.5 * self.df)
            - ops.lgamma(0.5 * (self.df + 1.0))
        )
        return -0.5 * (self.df + 1.0) * ops.log1p(y**2.0 / self.df) - z

    def entropy(self):
        half_df, half_next = 0.5 * self.df, 0.5 * (self.df + 1)
        lbeta = ops.lgamma(half_df) + math.lgamma(0.5) - ops.lgamma(half_next)
        return (
            ops.log(self.scale)
            + half_next * (ops.digamma(half_next) - ops.digamma(half_df))
            + 0.5 * ops.log(self.df)
            + lbeta
        )

    @property
    def mean(self):
        nan = ops.full_like(self.loc, float("nan"))
        return ops.where(self.df > 1, self.loc, nan)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        df = self.df
        finite = self.scale**2 * df / (df - 2)
        wide = ops.where(
            df > 1, ops.full_like(df, float("inf")), ops.full_like(df, float("nan"))
        )
        return ops.where(df > 2, finite, wide)


class _ProbsOrLogits(Distribution):
    """Distributions parameterised by ``probs`` or ``logits`` (exactly one of them)."""

    _binary = True

    def _set_parameter(self, probs, logits):
        if (probs is None) == (logits is None):
            raise ValueError(
                "Either `probs` or `logits` must be specified, but not both."
            )
        if probs is not None:
            (self.probs,) = _broadcast_all(probs)
            self.logits = self._probs_to_logits(self.probs)
            return self.probs
        (self.logits,) = _broadcast_all(logits)
        self.probs = self._logits_to_probs(self.logits)
        return self.logits

    def _probs_to_logits(self, probs):
        clamped = _clamp_probs(probs)
        if self._binary:
            return ops.log(clamped) - ops.log1p(-clamped)
        return ops.log(clamped)

    def _logits_to_probs(self, logits):
        return ops.sigmoid(logits) if self._binary else ops.softmax(logits, -1)


class Bernoulli(_ProbsOrLogits):
    def __init__(self, probs=None, logits=None, validate_args=None):
        param = self._set_parameter(probs, logits)
        super().__init__(param.shape, validate_args=validate_args)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = _uniform_draws(shape, self.probs.dtype)
        return (u < ops.broadcast_to(self.probs, shape)).astype(self.probs.dtype)

    def log_prob(self, value):
        logits, value = _broadcast_all(self.logits, value)
        return -ops.binary_cross_entropy_with_logits(
            logits, value, ops.ones_like(value), ops.ones_like(value), reduction="none"
        )

    def entropy(self):
        return ops.binary_cross_entropy_with_logits(
            self.logits,
            self.probs,
            ops.ones_like(self.probs),
            ops.ones_like(self.probs),
            reduction="none",
        )

    @property
    def mean(self):
        return self.probs

    @property
    def variance(self):
        return self.probs * (1 - self.probs)


class Binomial(_ProbsOrLogits):
    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        param = self._set_parameter(probs, logits)
        self.total_count, param = _broadcast_all(total_count, param)
        self.probs = ops.broadcast_to(self.probs, param.shape)
        self.logits = ops.broadcast_to(self.logits, param.shape)
        super().__init__(param.shape, validate_args=validate_args)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        trials = int(self.total_count.max().asnumpy()) if self.total_count.size else 0
        if trials == 0:
            return ops.zeros(shape, self.probs.dtype)
        u = _uniform_draws((trials,) + shape, self.probs.dtype)
        index = (
            ops.arange(trials)
            .astype(self.probs.dtype)
            .reshape((trials,) + (1,) * len(shape))
        )
        hits = ops.logical_and(u < self.probs, index < self.total_count)
        return hits.astype(self.probs.dtype).sum(0)

    def log_prob(self, value):
        n, logits = self.total_count, self.logits
        normalize = (
            n * ops.clamp(logits, min=0)
            + n * ops.log1p(ops.exp(-ops.abs(logits)))
            - ops.lgamma(n + 1)
        )
        return (
            value * logits
            - ops.lgamma(value + 1)
            - ops.lgamma(n - value + 1)
            - normalize
        )

    def enumerate_support(self, expand=True):
        trials = int(self.total_count.max().asnumpy())
        if trials != int(self.total_count.min().asnumpy()):
            raise NotImplementedError(
                "Inhomogeneous total count not supported by `enumerate_support`."
            )
        values = ops.arange(1 + trials).astype(self.probs.dtype)
        values = values.reshape((-1,) + (1,) * len(self.batch_shape))
        if expand:
            values = ops.broadcast_to(values, (-1,) + self.batch_shape)
        return values

    def entropy(self):
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(ops.exp(log_prob) * log_prob).sum(0)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)


class Geometric(_ProbsOrLogits):
    def __init__(self, probs=None, logits=None, validate_args=None):
        param = self._set_parameter(probs, logits)
        super().__init__(param.shape, validate_args=validate_args)

    def sample(self, sample_shape=()):
        tiny = float(_finfo(self.probs.dtype).tiny)
        u = _uniform_draws(
            self._extended_shape(sample_shape), self.probs.dtype, low=tiny
        )
        return ops.floor(ops.log(u) / ops.log1p(-self.probs))

    def log_prob(self, value):
        value, probs = _broadcast_all(value, self.probs)
        certain = ops.logical_and(probs == 1, value == 0)
        probs = ops.where(certain, ops.zeros_like(probs), probs)
        return value * ops.log1p(-probs) + ops.log(self.probs)

    def entropy(self):
        ones = ops.ones_like(self.probs)
        bce = ops.binary_cross_entropy_with_logits(
            self.logits, self.probs, ones, ones, reduction="none"
        )
        return bce / self.probs

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs


class Categorical(_ProbsOrLogits):
    _binary = False

    def __init__(self, probs=None, logits=None, validate_args=None):
        if probs is not None:
            probs = probs / probs.sum(-1, keepdims=True)
        if logits is not None:
            logits = logits - ops.logsumexp(logits, -1, keepdim=True)
        param = self._set_parameter(probs, logits)
        self._num_events = param.shape[-1]
        super().__init__(param.shape[:-1], validate_args=validate_args)

    def sample(self, sample_shape=()):
        sample_shape = _as_shape(sample_shape)
        count = max(1, int(np.prod(sample_shape)))
        probs_2d = self.probs.reshape(-1, self._num_events)
        draws = ops.multinomial(probs_2d, count, True).T.astype(mindspore.int64)
        return draws.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        value = value.astype(mindspore.int64)
        shape = np.broadcast_shapes(tuple(value.shape), tuple(self.batch_shape))
        value = ops.broadcast_to(value, shape)[..., None]
        log_pmf = ops.broadcast_to(self.logits, shape + (self._num_events,))
        return ops.gather_elements(log_pmf, -1, value)[..., 0]

    def entropy(self):
        min_real = float(_finfo(self.logits.dtype).min)
        logits = ops.clamp(self.logits, min=min_real)
        return -(logits * self.probs).sum(-1)

    @property
    def param_shape(self):
        return tuple(self.probs.shape)

    @property
    def mean(self):
        return ops.full(self._extended_shape(), float("nan"), dtype=self.probs.dtype)

    @property
    def mode(self):
        return self.probs.argmax(-1)

    @property
    def variance(self):
        return ops.full(self._extended_shape(), float("nan"), dtype=self.probs.dtype)


class Poisson(Distribution):
    def __init__(self, rate, validate_args=None):
        (self.rate,) = _broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    def sample(self, sample_shape=()):
        sample_shape = _as_shape(sample_shape)
        count = max(1, int(np.prod(sample_shape)))
        shape = mindspore.Tensor(np.array([count]), mindspore.int64)
        draws = ops.random_poisson(shape, self.rate.astype(mindspore.float32))
        return draws.reshape(self._extended_shape(sample_shape)).astype(self.rate.dtype)

    def log_prob(self, value):
        return ops.xlogy(value, self.rate) - self.rate - ops.lgamma(value + 1)

    @property
    def mean(self):
        return self.rate

    @property
    def variance(self):
        return self.rate


class MultivariateNormal(Distribution):
    has_rsample = True

    def __init__(
        self,
        loc,
        covariance_matrix=None,
        precision_matrix=None,
        scale_tril=None,
        validate_args=None,
    ):
        given = [
            m
            for m in (covariance_matrix, precision_matrix, scale_tril)
            if m is not None
        ]
        if len(given) != 1:
            raise ValueError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                "specified."
            )
        if scale_tril is not None:
            tril = scale_tril
        elif covariance_matrix is not None:
            tril = ops.cholesky(covariance_matrix)
        else:
            tril = ops.cholesky(ops.inverse(precision_matrix))
        batch = np.broadcast_shapes(tuple(tril.shape[:-2]), tuple(loc.shape[:-1]))
        event = tuple(loc.shape[-1:])
        self.loc = ops.broadcast_to(loc, batch + event)
        self._unbroadcasted_scale_tril = tril
        super().__init__(batch, event, validate_args=validate_args)

    @property
    def scale_tril(self):
        return ops.broadcast_to(
            self._unbroadcasted_scale_tril, self.batch_shape + self.event_shape * 2
        )

    @property
    def covariance_matrix(self):
        tril = self._unbroadcasted_scale_tril
        cov = ops.matmul(tril, tril.swapaxes(-1, -2))
        return ops.broadcast_to(cov, self.batch_shape + self.event_shape * 2)

    @property
    def precision_matrix(self):
        return ops.inverse(self.covariance_matrix)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = ops.standard_normal(shape).astype(self.loc.dtype)
        return (
            self.loc
            + ops.matmul(self._unbroadcasted_scale_tril, eps[..., None])[..., 0]
        )

    def log_prob(self, value):
        diff = value - self.loc
        inverse = ops.inverse(self._unbroadcasted_scale_tril)
        solved = ops.matmul(inverse, diff[..., None])[..., 0]
        mahalanobis = (solved**2).sum(-1)
        half_log_det = ops.log(
            ops.diagonal(self._unbroadcasted_scale_tril, 0, -2, -1)
        ).sum(-1)
        k = self.event_shape[0]
        return -0.5 * (k * math.log(2 * math.pi) + mahalanobis) - half_log_det

    def entropy(self):
        half_log_det = ops.log(
            ops.diagonal(self._unbroadcasted_scale_tril, 0, -2, -1)
        ).sum(-1)
        k = self.event_shape[0]
        value = 0.5 * k * (1.0 + math.log(2 * math.pi)) + half_log_det
        return ops.broadcast_to(value, self.batch_shape) if self.batch_shape else value

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        variance = (self._unbroadcasted_scale_tril**2).sum(-1)
        return ops.broadcast_to(variance, self.batch_shape + self.event_shape)


class Independent(Distribution):
    def __init__(
        self, base_distribution, reinterpreted_batch_ndims, validate_args=None
    ):
        n = int(reinterpreted_batch_ndims)
        shape = base_distribution.batch_shape + base_distribution.event_shape
        event_dim = n + len(base_distribution.event_shape)
        cut = len(shape) - event_dim
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = n
        self.has_rsample = base_distribution.has_rsample
        super().__init__(shape[:cut], shape[cut:], validate_args=validate_args)

    def _sum_rightmost(self, value):
        n = self.reinterpreted_batch_ndims
        return value.sum(tuple(range(-n, 0))) if n else value

    def sample(self, sample_shape=()):
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=()):
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        return self._sum_rightmost(self.base_dist.log_prob(value))

    def entropy(self):
        return self._sum_rightmost(self.base_dist.entropy())

    @property
    def mean(self):
        return self.base_dist.mean

    @property
    def mode(self):
        return self.base_dist.mode

    @property
    def variance(self):
        return self.base_dist.variance
