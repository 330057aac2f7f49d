"""Companion module written by torch2ms for the code converted beside it.

It holds what has no one-line MindSpore idiom: layer classes that take torch's constructor
arguments (they flow as values, or are subclassed), functions composed from operators that have
kernels on the target, and stand-ins for torch-only plumbing, each saying what it does.
Only the entries this tree uses are here. Entries: calculate_fan_in_and_fan_out, Conv1d, calculate_gain, init_uniform_, init_normal_, init_kaiming_uniform_.
"""

import math
import mindspore
import numpy as np
from mindspore import nn, ops
from mindspore.nn.layer.conv import _Conv as _MindSporeConv
from mindspore.nn.layer.normalization import _BatchNorm as _MindSporeBatchNorm


def calculate_fan_in_and_fan_out(tensor):
    """`torch.nn.init._calculate_fan_in_and_fan_out(t)`: (fan_in, fan_out) from the shape, as torch
    computes them: the receptive field (dims after the first two) times the input / output
    channels (dims 1 and 0)."""
    shape = tuple(tensor.shape)
    if len(shape) < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive = int(np.prod(shape[2:])) if len(shape) > 2 else 1
    return shape[1] * receptive, shape[0] * receptive


def _single(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _conv_padding(padding, kernel_size, stride, dilation, rank):
    """torch's Conv padding as explicit (before, after) amounts per spatial axis."""
    if not isinstance(padding, str):
        padding = padding if isinstance(padding, (tuple, list)) else (padding,) * rank
        return tuple((p, p) for p in padding)
    if padding == "valid":
        return ((0, 0),) * rank
    if padding != "same":
        raise ValueError(f"invalid padding {padding!r}, expected 'same' or 'valid'")
    if any(s != 1 for s in stride):
        raise ValueError("padding='same' is not supported for strided convolutions")
    # torch puts the odd pixel after.
    totals = [d * (k - 1) for k, d in zip(kernel_size, dilation)]
    return tuple((total // 2, total - total // 2) for total in totals)


_PAD_MODES = {"reflect": "reflect", "replicate": "replicate", "circular": "circular"}


class _TorchConv:
    """torch's Conv attributes and `padding_mode`, mixed into MindSpore's Conv layers: zero
    padding is the kernel's own, other modes pad the input first (`ops.pad`) and convolve
    without padding."""

    def _torch_attributes(
        self, kernel_size, stride, padding, dilation, groups, padding_mode
    ):
        if padding_mode != "zeros" and padding_mode not in _PAD_MODES:
            raise ValueError(
                "padding_mode must be one of zeros, reflect, replicate, circular, "
                f"got {padding_mode!r}"
            )
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.groups = groups
        self.padding_mode = padding_mode
        self.transposed = False

    def reset_parameters(self):
        """torch's `reset_parameters()` of this layer (see `_reset_layer`)."""
        _reset_layer(self)

    def _pad_input(self, x):
        if self._input_pad is None:
            return x
        return ops.pad(
            x, self._input_pad, mode=_PAD_MODES.get(self.padding_mode, "constant")
        )


class Conv1d(_TorchConv, nn.Conv1d):
    """`torch.nn.Conv1d`: MindSpore's Conv1d (its weight is (out, in, 1, k), as `torch2ms weights`
    writes it) with explicit padding, torch's `bias=True` default and its attributes."""

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=1,
        bias=True,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ):
        kernel_size, stride, dilation = (
            _single(kernel_size),
            _single(stride),
            _single(dilation),
        )
        ((left, right),) = _conv_padding(padding, kernel_size, stride, dilation, 1)
        # MindSpore's Conv1d pads both sides alike: odd 'same' padding pads the input first.
        kernel_pads = padding_mode == "zeros" and left == right
        super().__init__(
            in_channels,
            out_channels,
            kernel_size[0],
            stride=stride[0],
            pad_mode="pad",
            padding=left if kernel_pads else 0,
            dilation=dilation[0],
            group=groups,
            has_bias=bias,
        )
        self._input_pad = None if kernel_pads else (left, right)
        if not isinstance(padding, str):
            padding = _single(padding)
        self._torch_attributes(
            kernel_size, stride, padding, dilation, groups, padding_mode
        )
        self.output_padding = (0,)

    def construct(self, x):
        return super().construct(self._pad_input(x))


def _fill_(tensor, values):
    """Writes `values` into `tensor` in place and returns `tensor`. Slice assignment writes through
    MindSpore's views (`weight[i].view(shape)`) into the tensor they were taken from, as torch's
    in-place fills do; `ops.assign` refuses a view."""
    values = values.astype(tensor.dtype)
    if tensor.ndim == 0:
        tensor.view((1,))[:] = values.reshape((1,))
    else:
        tensor[:] = values
    return tensor


def _init_without_generator(name, generator):
    if generator is not None:
        raise NotImplementedError(
            f"init.{name}(generator=...): MindSpore draws from its own seed; call "
            "mindspore.set_seed(...) instead"
        )


def calculate_gain(nonlinearity, param=None):
    """`torch.nn.init.calculate_gain`: the recommended gain for a nonlinearity, torch's table."""
    if nonlinearity in (
        "linear",
        "conv1d",
        "conv2d",
        "conv3d",
        "conv_transpose1d",
        "conv_transpose2d",
        "conv_transpose3d",
        "sigmoid",
    ):
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def init_uniform_(tensor, a=0.0, b=1.0, generator=None):
    """`torch.nn.init.uniform_`: fills `tensor` (a Parameter, or a view of one) from U(a, b) in
    place, drawn with `ops.rand`. The numbers differ from torch's draw."""
    _init_without_generator("uniform_", generator)
    return _fill_(tensor, ops.rand(tensor.shape) * (b - a) + a)


def init_normal_(tensor, mean=0.0, std=1.0, generator=None):
    """`torch.nn.init.normal_`: fills `tensor` (or a view of one) from N(mean, std^2) in place,
    drawn with `ops.randn`."""
    _init_without_generator("normal_", generator)
    return _fill_(tensor, ops.randn(tensor.shape) * std + mean)


def _kaiming_std(tensor, a, mode, nonlinearity):
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(
            f"Mode {mode} not supported, please use one of fan_in, fan_out"
        )
    fan_in, fan_out = calculate_fan_in_and_fan_out(tensor)
    fan = fan_in if mode == "fan_in" else fan_out
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def init_kaiming_uniform_(
    tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None
):
    """`torch.nn.init.kaiming_uniform_`: U(-b, b) with b = sqrt(3) * gain / sqrt(fan), the fan of
    the tensor's own shape (a view's, for a view: timm's CondConv initialises each expert through
    `weight[i].view(expert_shape)`), filled in place."""
    _init_without_generator("kaiming_uniform_", generator)
    if 0 in tuple(tensor.shape):
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return _fill_(tensor, ops.rand(tensor.shape) * (2 * bound) - bound)


def _reset_layer(module):
    """torch's `reset_parameters()` of a built-in layer, on the MindSpore layer it became:
    Linear and Conv draw the weight from kaiming_uniform_(a=sqrt(5)) and the bias from
    U(-1/sqrt(fan_in), 1/sqrt(fan_in)); BatchNorm zeroes its running mean and count, sets its
    running variance and scale to one and its shift to zero; LayerNorm and GroupNorm set scale one
    and shift zero; Embedding draws N(0, 1) and zeroes the padding row. Anything else has no such
    method, as in torch."""
    if isinstance(module, _MindSporeBatchNorm):
        _fill_(module.moving_mean, ops.zeros_like(module.moving_mean))
        _fill_(module.moving_variance, ops.ones_like(module.moving_variance))
        if getattr(module, "num_batches_tracked", None) is not None:
            module.num_batches_tracked = mindspore.Tensor(0, mindspore.int64)
        _fill_(module.gamma, ops.ones_like(module.gamma))
        _fill_(module.beta, ops.zeros_like(module.beta))
    elif isinstance(module, (nn.LayerNorm, nn.GroupNorm)):
        _fill_(module.gamma, ops.ones_like(module.gamma))
        _fill_(module.beta, ops.zeros_like(module.beta))
    elif isinstance(module, (nn.Dense, _MindSporeConv)):
        init_kaiming_uniform_(module.weight, a=math.sqrt(5))
        if getattr(module, "has_bias", False) and module.bias is not None:
            fan_in, _ = calculate_fan_in_and_fan_out(module.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init_uniform_(module.bias, -bound, bound)
    elif isinstance(module, nn.Embedding):
        init_normal_(module.embedding_table)
        if module.padding_idx is not None:
            module.embedding_table[module.padding_idx] = 0.0
    else:
        # what torch raises for a module without the method
        raise AttributeError(  # noqa: TRY004
            f"'{type(module).__name__}' object has no attribute 'reset_parameters'"
        )
