"""``mindspore.experimental``."""

from .._missing import module_getattr
from . import optim  # noqa: F401

__getattr__ = module_getattr(__name__)
