"""Transposed convolution layers with torch's constructor, parameter layout and forward, on the
companion's `conv_transpose1d`/`conv_transpose2d` (MindSpore's Conv1dTranspose takes no
`output_padding`, and its layers keep another weight layout)."""

import math

from mindspore import Parameter, nn, ops
from mindspore.common.initializer import HeUniform, initializer
from mindspore.common.initializer import Uniform as UniformInitializer

from .losses import _each, conv_transpose1d, conv_transpose2d


class _ConvTranspose(nn.Cell):
    """torch's `weight` (in, out / groups, *kernel) and `bias` (out), initialised as torch's
    `reset_parameters` does (kaiming uniform with a = sqrt(5), a bias uniform in
    +-1/sqrt(fan_in)). Only `padding_mode='zeros'` exists for transposed convolutions in torch."""

    rank = 2
    _function = None

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        groups=1,
        bias=True,
        dilation=1,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ):
        super().__init__()
        if padding_mode != "zeros":
            raise ValueError(
                f'Only "zeros" padding mode is supported for {type(self).__name__}'
            )
        if in_channels % groups or out_channels % groups:
            raise ValueError("in_channels and out_channels must be divisible by groups")
        rank = self.rank
        self.in_channels, self.out_channels, self.groups = (
            in_channels,
            out_channels,
            groups,
        )
        self.kernel_size = _each(kernel_size, rank)
        self.stride, self.padding = _each(stride, rank), _each(padding, rank)
        self.output_padding, self.dilation = (
            _each(output_padding, rank),
            _each(dilation, rank),
        )
        self.padding_mode = padding_mode
        shape = (in_channels, out_channels // groups, *self.kernel_size)
        self.weight = Parameter(
            initializer(HeUniform(math.sqrt(5)), shape), name="weight"
        )
        fan_in = shape[1] * math.prod(self.kernel_size)
        bound = 1 / math.sqrt(fan_in) if fan_in else 0
        self.bias = (
            Parameter(
                initializer(UniformInitializer(bound), (out_channels,)), name="bias"
            )
            if bias
            else None
        )

    def construct(self, input, output_size=None):
        if output_size is not None:
            raise NotImplementedError(
                f"{type(self).__name__}: output_size is not supported; pass output_padding"
            )
        return type(self)._function(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            self.output_padding,
            self.groups,
            self.dilation,
        )


class ConvTranspose1d(_ConvTranspose):
    """`torch.nn.ConvTranspose1d`: torch's arguments, weight layout and forward."""

    rank = 1
    _function = conv_transpose1d


class ConvTranspose2d(_ConvTranspose):
    """`torch.nn.ConvTranspose2d`: torch's arguments, weight layout and forward."""

    rank = 2
    _function = conv_transpose2d
