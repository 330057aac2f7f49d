"""``mindspore.parallel``: the shim runs on one device."""

from .._missing import module_getattr
from . import _utils  # noqa: F401

__getattr__ = module_getattr(__name__)
