"""``mindspore.mint.nn.functional``: torch-style neural-network functions."""

from __future__ import annotations

from typing import Any

from .... import core
from ..._missing import module_getattr
from ...ops import _functional as F


def relu(input: Any, inplace: bool = False) -> Any:
    return F.relu(input)


def gelu(input: Any, approximate: str = "none") -> Any:
    return F.gelu(input, approximate)


def silu(input: Any, inplace: bool = False) -> Any:
    return F.silu(input)


def sigmoid(input: Any) -> Any:
    return F.sigmoid(input)


def tanh(input: Any) -> Any:
    return F.tanh(input)


def softmax(input: Any, dim: int = -1, dtype: Any = None) -> Any:
    return F.softmax(input, dim, dtype=dtype)


def log_softmax(input: Any, dim: int = -1, dtype: Any = None) -> Any:
    return F.log_softmax(input if dtype is None else F.cast(input, dtype), dim)


def linear(input: Any, weight: Any, bias: Any = None) -> Any:
    return F.dense(input, weight, bias)


def dropout(
    input: Any, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Any:
    return F.dropout(input, p, training)


def cross_entropy(
    input: Any,
    target: Any,
    weight: Any = None,
    ignore_index: int = -100,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Any:
    return F.cross_entropy(
        input, target, weight, ignore_index, reduction, label_smoothing
    )


def nll_loss(
    input: Any,
    target: Any,
    weight: Any = None,
    ignore_index: int = -100,
    reduction: str = "mean",
) -> Any:
    return F.nll_loss(input, target, weight, ignore_index, reduction)


def mse_loss(input: Any, target: Any, reduction: str = "mean") -> Any:
    return F.mse_loss(input, target, reduction)


def l1_loss(input: Any, target: Any, reduction: str = "mean") -> Any:
    return F.l1_loss(input, target, reduction)


def smooth_l1_loss(
    input: Any, target: Any, reduction: str = "mean", beta: float = 1.0
) -> Any:
    return F.smooth_l1_loss(input, target, beta, reduction)


def binary_cross_entropy(
    input: Any, target: Any, weight: Any = None, reduction: str = "mean"
) -> Any:
    return F.binary_cross_entropy(input, target, weight, reduction)


def binary_cross_entropy_with_logits(
    input: Any,
    target: Any,
    weight: Any = None,
    reduction: str = "mean",
    pos_weight: Any = None,
) -> Any:
    return F.binary_cross_entropy_with_logits(
        input, target, weight, pos_weight, reduction
    )


def layer_norm(
    input: Any,
    normalized_shape: Any,
    weight: Any = None,
    bias: Any = None,
    eps: float = 1e-5,
) -> Any:
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def embedding(
    input: Any,
    weight: Any,
    padding_idx: Any = None,
    max_norm: Any = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Any:
    return F.embedding(
        input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq
    )


def conv2d(
    input: Any,
    weight: Any,
    bias: Any = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Any:
    return core.conv2d(F._t(input), weight, bias, stride, padding, dilation, groups)


def max_pool2d(
    input: Any,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    *,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    return F.max_pool2d(
        input, kernel_size, stride, padding, dilation, return_indices, ceil_mode
    )


def avg_pool2d(
    input: Any,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: Any = None,
) -> Any:
    return core.avg_pool2d(
        F._t(input),
        kernel_size,
        stride,
        padding,
        ceil_mode,
        count_include_pad,
        divisor_override,
    )


__getattr__ = module_getattr(__name__)
