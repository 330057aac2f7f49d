"""MindSpore's convolution padding modes on top of the engine's symmetric-padding conv2d."""

from __future__ import annotations

from typing import Any

from ... import core


def pair(value: Any) -> tuple[int, int]:
    if isinstance(value, (tuple, list)):
        return (int(value[0]), int(value[-1]))
    return (int(value), int(value))


def same_pads(size: int, kernel: int, stride: int, dilation: int) -> tuple[int, int]:
    """TensorFlow-style 'same': output = ceil(size / stride), the extra pixel goes at the end."""
    out = -(-size // stride)
    total = max((out - 1) * stride + (kernel - 1) * dilation + 1 - size, 0)
    return total // 2, total - total // 2


def explicit_pads(padding: Any) -> tuple[int, int, int, int]:
    """``padding`` as (top, bottom, left, right)."""
    if isinstance(padding, (tuple, list)):
        if len(padding) == 4:
            return tuple(int(p) for p in padding)
        if len(padding) == 2:
            return (int(padding[0]), int(padding[0]), int(padding[1]), int(padding[1]))
        return (int(padding[0]),) * 4
    return (int(padding),) * 4


def conv2d_ms(
    x: Any,
    weight: Any,
    bias: Any,
    stride: Any,
    pad_mode: str,
    padding: Any,
    dilation: Any,
    groups: int,
) -> Any:
    stride, dilation = pair(stride), pair(dilation)
    kh, kw = weight.shape[2], weight.shape[3]
    if pad_mode == "same":
        top, bottom = same_pads(x.shape[2], kh, stride[0], dilation[0])
        left, right = same_pads(x.shape[3], kw, stride[1], dilation[1])
    elif pad_mode == "valid":
        top = bottom = left = right = 0
    elif pad_mode == "pad":
        top, bottom, left, right = explicit_pads(padding)
    else:
        raise ValueError(f"pad_mode must be 'same', 'valid' or 'pad', not {pad_mode!r}")
    if (top, left) == (bottom, right):
        return core.conv2d(x, weight, bias, stride, (top, left), dilation, groups)
    x = core.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)), 0.0)
    return core.conv2d(x, weight, bias, stride, 0, dilation, groups)


def pool_pads(
    x: Any, kernel: tuple, stride: tuple, pad_mode: str, padding: Any, value: float
) -> tuple[Any, Any]:
    """Pads for MindSpore pooling: returns the (possibly padded) input and the engine padding."""
    if pad_mode == "same":
        top, bottom = same_pads(x.shape[2], kernel[0], stride[0], 1)
        left, right = same_pads(x.shape[3], kernel[1], stride[1], 1)
        if (top, bottom, left, right) != (0, 0, 0, 0):
            x = core.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)), value)
        return x, 0
    if pad_mode == "valid":
        return x, 0
    return x, padding
