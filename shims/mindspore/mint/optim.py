"""``mindspore.mint.optim`` (torch-style; same rules as ``mindspore.experimental.optim``)."""

from .._missing import module_getattr
from ..experimental.optim import SGD, Adam, AdamW  # noqa: F401

__getattr__ = module_getattr(__name__)
