"""Padding, upsampling, channel shuffling and fractional max pooling with torch's arguments, from
ops with CPU kernels (MindSpore 2.10 has no reflect padding of 5-D input on CPU, and none of these
layers under torch's names)."""

import math

import mindspore
import numpy as np
from mindspore import Tensor, nn, ops

from .functional import interpolate


def _reflect_axis(input, axis, before, after):
    """torch's reflection padding of one axis: the mirror image without the edge element."""
    size = input.shape[axis]
    if before >= size or after >= size:
        raise ValueError(
            f"Padding size should be less than the corresponding input dimension, but got: "
            f"padding ({before}, {after}) at dimension {axis} of input {tuple(input.shape)}"
        )
    index = (
        list(range(before, 0, -1))
        + list(range(size))
        + [size - 2 - i for i in range(after)]
    )
    return ops.gather(input, Tensor(index, mindspore.int32), axis)


class _Pad(nn.Cell):
    """torch's padding layers: `padding` is an int or one (before, after) pair per padded axis,
    last axis first; `self.padding` holds the pairs as torch's attribute does."""

    rank = 2

    def __init__(self, padding):
        super().__init__()
        if isinstance(padding, int):
            padding = (padding,) * (2 * self.rank)
        self.padding = tuple(padding)

    def extend_repr(self):
        return f"{self.padding}"


class _CircularPad(_Pad):
    def construct(self, input):
        return ops.pad(input, self.padding, mode="circular")


class CircularPad1d(_CircularPad):
    """`torch.nn.CircularPad1d`: wraps the last axis around."""

    rank = 1


class CircularPad2d(_CircularPad):
    """`torch.nn.CircularPad2d`: wraps the last two axes around."""

    rank = 2


class CircularPad3d(_CircularPad):
    """`torch.nn.CircularPad3d`: wraps the last three axes around."""

    rank = 3


class ReflectionPad3d(_Pad):
    """`torch.nn.ReflectionPad3d`: reflection padding of the last three axes, one axis at a
    time."""

    rank = 3

    def construct(self, input):
        for offset in range(self.rank):
            before, after = self.padding[2 * offset : 2 * offset + 2]
            if before or after:
                input = _reflect_axis(input, input.ndim - 1 - offset, before, after)
        return input


def upsample_nearest(input, size=None, scale_factor=None):
    """`torch.nn.functional.upsample_nearest`: `interpolate(mode='nearest')`."""
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """`torch.nn.functional.upsample_bilinear`: bilinear with `align_corners=True`, as torch's."""
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


class UpsamplingNearest2d(nn.Cell):
    """`torch.nn.UpsamplingNearest2d`: `upsample_nearest` with torch's arguments."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__()
        self.size, self.scale_factor = size, scale_factor

    def construct(self, input):
        return upsample_nearest(input, self.size, self.scale_factor)


class UpsamplingBilinear2d(UpsamplingNearest2d):
    """`torch.nn.UpsamplingBilinear2d`: `upsample_bilinear` with torch's arguments."""

    def construct(self, input):
        return upsample_bilinear(input, self.size, self.scale_factor)


def channel_shuffle(input, groups):
    """`torch.nn.functional.channel_shuffle`: channels (g, C / g) read as (C / g, g)."""
    batch, channels = input.shape[0], input.shape[1]
    if channels % groups:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {channels} channels and "
            f"{groups} groups."
        )
    rest = tuple(input.shape[2:])
    grouped = input.reshape((batch, groups, channels // groups) + rest)
    return ops.swapaxes(grouped, 1, 2).reshape(input.shape)


class ChannelShuffle(nn.Cell):
    """`torch.nn.ChannelShuffle`: `channel_shuffle` with torch's argument."""

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def construct(self, input):
        return channel_shuffle(input, self.groups)


def _fractional_starts(sample, size, output, kernel):
    """torch's pseudo-random pooling intervals: the start of each window along one axis."""
    if output == 1:
        return [size - kernel]
    alpha = (size - kernel) / (output - 1)
    starts = [
        int((i + sample) * alpha) - int(sample * alpha) for i in range(output - 1)
    ]
    return starts + [size - kernel]


def _fractional_max_pool(
    input, kernel_size, output_size, output_ratio, return_indices, samples, rank
):
    unbatched = input.ndim == rank + 1
    if unbatched:
        input = input.expand_dims(0)
    spatial = tuple(input.shape[2:])
    kernel = (
        kernel_size if isinstance(kernel_size, (tuple, list)) else (kernel_size,) * rank
    )
    if output_size is None:
        ratio = (
            output_ratio
            if isinstance(output_ratio, (tuple, list))
            else (output_ratio,) * rank
        )
        output_size = tuple(int(s * r) for s, r in zip(spatial, ratio))
    elif not isinstance(output_size, (tuple, list)):
        output_size = (output_size,) * rank
    batch, channels = input.shape[0], input.shape[1]
    if samples is None:
        samples = ops.rand((batch, channels, rank), dtype=input.dtype)
    # torch reads the samples of a plane last axis first for 2-D pooling, in order for 3-D.
    drawn = samples.asnumpy().astype(np.float64)
    order = (1, 0) if rank == 2 else tuple(range(rank))
    strides = [math.prod(spatial[axis + 1 :]) for axis in range(rank)]
    window = np.stack(
        np.meshgrid(*[np.arange(k) for k in kernel], indexing="ij"), -1
    ).reshape(-1, rank)
    positions = np.zeros(
        (batch, channels) + tuple(output_size) + (len(window),), np.int64
    )
    for n in range(batch):
        for c in range(channels):
            starts = [
                _fractional_starts(
                    drawn[n, c, order[axis]],
                    spatial[axis],
                    output_size[axis],
                    kernel[axis],
                )
                for axis in range(rank)
            ]
            grid = np.stack(np.meshgrid(*starts, indexing="ij"), -1)
            points = grid[..., None, :] + window
            positions[n, c] = (points * np.array(strides)).sum(-1)
    flat = input.reshape((batch, channels, 1, -1))
    picked = positions.reshape(batch, channels, -1, len(window))
    cells = ops.gather_elements(
        flat.broadcast_to((batch, channels, picked.shape[2], flat.shape[-1])),
        3,
        Tensor(picked),
    )
    output = ops.amax(cells, -1).reshape((batch, channels) + tuple(output_size))
    where = ops.argmax(cells, -1, keepdim=True)
    indices = ops.gather_elements(Tensor(picked), 3, where).reshape(output.shape)
    if unbatched:
        output, indices = output.squeeze(0), indices.squeeze(0)
    return (output, indices) if return_indices else output


def fractional_max_pool2d(
    input,
    kernel_size,
    output_size=None,
    output_ratio=None,
    return_indices=False,
    _random_samples=None,
):
    """`torch.nn.functional.fractional_max_pool2d`: max pooling over windows placed by torch's
    pseudo-random intervals; with `_random_samples` the windows are torch's exactly, without
    them the samples are drawn here (other numbers than torch's)."""
    return _fractional_max_pool(
        input,
        kernel_size,
        output_size,
        output_ratio,
        return_indices,
        _random_samples,
        2,
    )


def fractional_max_pool3d(
    input,
    kernel_size,
    output_size=None,
    output_ratio=None,
    return_indices=False,
    _random_samples=None,
):
    """`torch.nn.functional.fractional_max_pool3d` (see `fractional_max_pool2d`)."""
    return _fractional_max_pool(
        input,
        kernel_size,
        output_size,
        output_ratio,
        return_indices,
        _random_samples,
        3,
    )


class FractionalMaxPool2d(nn.Cell):
    """`torch.nn.FractionalMaxPool2d` with torch's arguments (see `fractional_max_pool2d`)."""

    rank = 2

    def __init__(
        self,
        kernel_size,
        output_size=None,
        output_ratio=None,
        return_indices=False,
        _random_samples=None,
    ):
        super().__init__()
        if output_size is None and output_ratio is None:
            raise ValueError(
                "FractionalMaxPool requires specifying either an output size, or a pooling ratio"
            )
        self.kernel_size, self.output_size, self.output_ratio = (
            kernel_size,
            output_size,
            output_ratio,
        )
        self.return_indices, self._random_samples = return_indices, _random_samples

    def construct(self, input):
        return _fractional_max_pool(
            input,
            self.kernel_size,
            self.output_size,
            self.output_ratio,
            self.return_indices,
            self._random_samples,
            self.rank,
        )


class FractionalMaxPool3d(FractionalMaxPool2d):
    """`torch.nn.FractionalMaxPool3d` with torch's arguments (see `fractional_max_pool2d`)."""

    rank = 3
