"""`torch.distributions.Gumbel(loc, scale)`: the extreme-value distribution, with torch's shapes,
density and moments. A draw is `loc - scale * log(-log(u))` for u uniform in (0, 1), kept away
from both ends as torch keeps it (`finfo.tiny` and `1 - eps`), so the Gumbel-max trick and
Gumbel-softmax noise are finite.
"""

import math

from mindspore import ops

from .distributions import _finfo, _LocScale, _uniform_draws

_EULER_GAMMA = 0.57721566490153286060


class Gumbel(_LocScale):
    def rsample(self, sample_shape=()):
        info = _finfo(self.loc.dtype)
        u = _uniform_draws(self._extended_shape(sample_shape), self.loc.dtype)
        u = ops.clamp(u, float(info.tiny), 1 - float(info.eps))
        return self.loc - self.scale * ops.log(-ops.log(u))

    def log_prob(self, value):
        z = (value - self.loc) / self.scale
        return -(ops.log(self.scale) + z + ops.exp(-z))

    def cdf(self, value):
        return ops.exp(-ops.exp(-(value - self.loc) / self.scale))

    def icdf(self, value):
        return self.loc - self.scale * ops.log(-ops.log(value))

    def entropy(self):
        return ops.log(self.scale) + 1 + _EULER_GAMMA

    @property
    def mean(self):
        return self.loc + self.scale * _EULER_GAMMA

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        return self.stddev**2
