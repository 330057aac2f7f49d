"""``mindspore.ops.operations`` (operator classes, usually imported as ``P``)."""

from .._missing import module_getattr
from ._primitives import *

__getattr__ = module_getattr(__name__)
