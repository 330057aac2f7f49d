"""``mindspore.ops.functional`` (older spelling of the functional operators)."""

from .._grad import stop_gradient  # noqa: F401
from .._missing import module_getattr
from ._functional import *
from ._functional import abs, all, any, max, min, pow, round, sum  # noqa: F401
from ._primitives import partial  # noqa: F401

__getattr__ = module_getattr(__name__)
