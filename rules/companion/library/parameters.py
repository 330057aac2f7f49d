"""Functions that set a layer's parameter values as torch does.

torch's initializers fill a tensor in place, and timm hands them views (`weight[i].view(shape)`)
whose update must reach the parameter; BatchNorm folds into a convolution for inference; torch's
built-in layers reset their parameters on request (`m.reset_parameters()`).
"""

import copy
import math

import mindspore
import numpy as np
from mindspore import nn, ops
from mindspore.nn.layer.conv import _Conv as _MindSporeConv
from mindspore.nn.layer.normalization import _BatchNorm as _MindSporeBatchNorm

from .runtime import calculate_fan_in_and_fan_out


def fuse_conv_bn_weights(
    conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False
):
    """`torch.nn.utils.fusion.fuse_conv_bn_weights`: the convolution weight and bias that compute
    the convolution followed by the evaluation-mode BatchNorm, as Parameters."""
    if conv_b is None:
        conv_b = ops.zeros_like(bn_rm)
    if bn_w is None:
        bn_w = ops.ones_like(bn_rm)
    if bn_b is None:
        bn_b = ops.zeros_like(bn_rm)
    scale = bn_w * ops.rsqrt(bn_rv + bn_eps)
    shape = (1, -1) if transpose else (-1, 1)
    shape = shape + (1,) * (conv_w.ndim - 2)
    fused_w = (conv_w * scale.reshape(shape)).astype(conv_w.dtype)
    fused_b = ((conv_b - bn_rm) * scale + bn_b).astype(conv_b.dtype)
    return (
        mindspore.Parameter(fused_w, requires_grad=_trains(conv_w)),
        mindspore.Parameter(fused_b, requires_grad=_trains(conv_b)),
    )


def _trains(value):
    """Whether a value is a trained Parameter (a computed tensor stands for torch's
    `requires_grad=False` one)."""
    return isinstance(value, mindspore.Parameter) and value.requires_grad


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """`torch.nn.utils.fusion.fuse_conv_bn_eval`: a copy of `conv` whose weight and bias fold in
    the BatchNorm `bn` as it normalises in evaluation mode (moving statistics, `gamma`, `beta`).
    Both must be in evaluation mode (`set_train(False)`), as torch asserts."""
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(conv)
    weight, bias = fuse_conv_bn_weights(
        fused.weight,
        fused.bias if getattr(fused, "has_bias", fused.bias is not None) else None,
        bn.moving_mean,
        bn.moving_variance,
        bn.eps,
        bn.gamma,
        bn.beta,
        transpose,
    )
    weight.name = fused.weight.name
    fused.weight = weight
    bias.name = "bias"
    fused.bias = bias
    fused.has_bias = True
    return fused


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


def init_trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """`torch.nn.init.trunc_normal_`: N(mean, std^2) truncated to [a, b], drawn as torch draws it:
    a uniform draw between the two bounds' normal CDFs, mapped back through the inverse CDF
    (`ops.erfinv`), then clamped."""
    _init_without_generator("trunc_normal_", generator)

    def cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    low, high = cdf((a - mean) / std), cdf((b - mean) / std)
    draw = ops.rand(tensor.shape) * (2 * high - 2 * low) + (2 * low - 1)
    values = ops.erfinv(draw) * (std * math.sqrt(2.0)) + mean
    return _fill_(tensor, ops.clamp(values, a, b))


def init_constant_(tensor, val):
    """`torch.nn.init.constant_`: fills `tensor` (or a view of one) with `val` in place."""
    return _fill_(tensor, ops.fill(tensor.dtype, tensor.shape, val))


def init_ones_(tensor):
    """`torch.nn.init.ones_`: fills `tensor` (or a view of one) with ones in place."""
    return _fill_(tensor, ops.ones(tensor.shape, tensor.dtype))


def init_zeros_(tensor):
    """`torch.nn.init.zeros_`: fills `tensor` (or a view of one) with zeros in place."""
    return _fill_(tensor, ops.zeros(tensor.shape, tensor.dtype))


def init_eye_(tensor):
    """`torch.nn.init.eye_`: fills a 2-D `tensor` (or a view of one) with the identity in
    place."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _fill_(tensor, ops.eye(tensor.shape[0], tensor.shape[1], tensor.dtype))


def init_dirac_(tensor, groups=1):
    """`torch.nn.init.dirac_`: fills a 3-, 4- or 5-D convolution weight in place with the
    Dirac delta, which keeps the input channels of each group."""
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    shape = tuple(tensor.shape)
    if shape[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = shape[0] // groups
    values = np.zeros(shape, np.float32)
    center = tuple(size // 2 for size in shape[2:])
    for group in range(groups):
        for channel in range(min(per_group, shape[1])):
            values[(group * per_group + channel, channel) + center] = 1.0
    return _fill_(tensor, mindspore.Tensor(values))


def init_xavier_uniform_(tensor, gain=1.0, generator=None):
    """`torch.nn.init.xavier_uniform_`: U(-b, b) with b = gain * sqrt(6 / (fan_in + fan_out)),
    the fans of the tensor's own shape (a view's, for a view), filled in place."""
    _init_without_generator("xavier_uniform_", generator)
    fan_in, fan_out = calculate_fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / float(fan_in + fan_out))
    return _fill_(tensor, ops.rand(tensor.shape) * (2 * bound) - bound)


def init_xavier_normal_(tensor, gain=1.0, generator=None):
    """`torch.nn.init.xavier_normal_`: N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out)),
    filled in place."""
    _init_without_generator("xavier_normal_", generator)
    fan_in, fan_out = calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return _fill_(tensor, ops.randn(tensor.shape) * std)


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


def init_kaiming_normal_(
    tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None
):
    """`torch.nn.init.kaiming_normal_`: N(0, std^2) with std = gain / sqrt(fan), filled in place."""
    _init_without_generator("kaiming_normal_", generator)
    if 0 in tuple(tensor.shape):
        return tensor
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    return _fill_(tensor, ops.randn(tensor.shape) * std)


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


def reset_parameters(module):
    """`module.reset_parameters()`: the module's own method where its class has one (a layer of
    the program, a companion layer); for a MindSpore layer that a torch built-in layer became
    (`nn.Dense`, `nn.BatchNorm2d`, ...), what torch's method does (see `_reset_layer`)."""
    if hasattr(type(module), "reset_parameters"):
        return module.reset_parameters()
    return _reset_layer(module)
