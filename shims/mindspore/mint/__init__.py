"""``mindspore.mint``: torch-style functional operators (``dim=``, ``keepdim=``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ... import core
from .._missing import module_getattr
from ..ops import _functional as F
from ..ops._functional import (  # noqa: F401
    abs,
    add,
    cos,
    div,
    exp,
    eye,
    full,
    log,
    matmul,
    maximum,
    minimum,
    mul,
    neg,
    ones_like,
    pow,
    rand,
    randn,
    sigmoid,
    sin,
    sqrt,
    square,
    sub,
    tanh,
    where,
    zeros_like,
)
from . import nn, optim  # noqa: F401


def _t(x: Any) -> Any:
    return F._t(x)


def zeros(size: Any, *, dtype: Any = None) -> Any:
    return F.zeros(size, dtype)


def ones(size: Any, *, dtype: Any = None) -> Any:
    return F.ones(size, dtype)


def arange(start: Any = 0, end: Any = None, step: Any = 1, *, dtype: Any = None) -> Any:
    return F.arange(start, end, step, dtype=dtype)


def sum(
    input: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None
) -> Any:
    return F.sum(input, dim, keepdim, dtype=dtype)


def mean(
    input: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None
) -> Any:
    out = F.mean(input, dim, keepdim)
    return out if dtype is None else F.cast(out, dtype)


def max(input: Any, dim: Any = None, keepdim: bool = False) -> Any:
    if dim is None:
        return core.max(_t(input))
    return F.max(input, dim, keepdim)


def min(input: Any, dim: Any = None, keepdim: bool = False) -> Any:
    if dim is None:
        return core.min(_t(input))
    return F.min(input, dim, keepdim)


def argmax(input: Any, dim: Any = None, keepdim: bool = False) -> Any:
    return F.argmax(input, dim, keepdim)


def cat(tensors: Sequence[Any], dim: int = 0) -> Any:
    return F.concat(tensors, dim)


concat = cat


def stack(tensors: Sequence[Any], dim: int = 0) -> Any:
    return F.stack(tensors, dim)


def reshape(input: Any, shape: Any) -> Any:
    return F.reshape(input, shape)


def transpose(input: Any, dim0: int, dim1: int) -> Any:
    return F.swapaxes(input, dim0, dim1)


def permute(input: Any, dims: Any) -> Any:
    return F.permute(input, dims)


def squeeze(input: Any, dim: Any = None) -> Any:
    return F.squeeze(input, dim)


def unsqueeze(input: Any, dim: int) -> Any:
    return F.unsqueeze(input, dim)


def flatten(input: Any, start_dim: int = 0, end_dim: int = -1) -> Any:
    return core.flatten(_t(input), start_dim, end_dim)


def split(tensor: Any, split_size_or_sections: Any, dim: int = 0) -> tuple:
    return F.split(tensor, split_size_or_sections, dim)


def chunk(input: Any, chunks: int, dim: int = 0) -> tuple:
    return F.chunk(input, chunks, dim)


def gather(input: Any, dim: int, index: Any) -> Any:
    return F.gather_elements(input, dim, index)


def clamp(input: Any, min: Any = None, max: Any = None) -> Any:
    return F.clamp(input, min, max)


def softmax(input: Any, dim: int = -1, *, dtype: Any = None) -> Any:
    return F.softmax(input, dim, dtype=dtype)


def normal(mean: float = 0.0, std: float = 1.0, size: Any = None) -> Any:
    return F.normal(size, mean, std)


def randint(low: int, high: int, size: Any, *, dtype: Any = None) -> Any:
    return F.randint(low, high, size, dtype=dtype)


def randperm(n: int, *, dtype: Any = None) -> Any:
    return F.randperm(n, dtype=dtype)


def isfinite(input: Any) -> Any:
    return F.isfinite(input)


def logsumexp(input: Any, dim: Any, keepdim: bool = False) -> Any:
    return F.logsumexp(input, dim, keepdim)


def tensor(data: Any, dtype: Any = None) -> Any:
    return F.tensor(data, dtype)


__getattr__ = module_getattr(__name__)
