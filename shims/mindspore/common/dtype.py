"""``mindspore.common.dtype`` (usually imported as ``mstype``)."""

from .._dtype import *
