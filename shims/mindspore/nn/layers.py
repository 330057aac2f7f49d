"""``mindspore.nn`` layers with MindSpore 2.10's defaults and parameter names."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import core
from .. import _dtype
from .._missing import missing
from .._tensor import Parameter, Tensor
from ..common.initializer import initializer
from ..ops import _functional as F
from . import _conv
from .cell import Cell


def _param(
    init: Any,
    shape: tuple,
    name: str,
    dtype: Any = _dtype.float32,
    requires_grad: bool = True,
) -> Parameter:
    return Parameter(
        initializer(init, shape, dtype), name=name, requires_grad=requires_grad
    )


class Dense(Cell):
    """``y = x @ weight.T + bias``; ``weight`` is (out, in). Default init: weight then bias, both
    U(-1/sqrt(in), 1/sqrt(in)), drawn like torch.nn.Linear."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        weight_init: Any = None,
        bias_init: Any = None,
        has_bias: bool = True,
        activation: Any = None,
        dtype: Any = _dtype.float32,
    ) -> None:
        super().__init__()
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.has_bias = has_bias
        if weight_init is None and bias_init is None:
            weight, bias = core.init_linear(out_channels, in_channels, has_bias)
            self.weight = Parameter(Tensor(weight, dtype), name="weight")
            self.bias = (
                Parameter(Tensor(bias, dtype), name="bias") if has_bias else None
            )
        else:
            if weight_init is None:
                weight_init = Tensor(
                    core.init_kaiming_uniform(
                        (out_channels, in_channels), a=math.sqrt(5)
                    )
                )
            self.weight = _param(
                weight_init, (out_channels, in_channels), "weight", dtype
            )
            if has_bias:
                if bias_init is None:
                    bound = 1.0 / math.sqrt(in_channels) if in_channels else 0.0
                    bias_init = Tensor(core.init_uniform((out_channels,), bound))
                self.bias = _param(bias_init, (out_channels,), "bias", dtype)
            else:
                self.bias = None
        self.activation = (
            get_activation(activation) if isinstance(activation, str) else activation
        )
        self.activation_flag = self.activation is not None

    def construct(self, x: Any) -> Any:
        out = core.linear(x, self.weight, self.bias)
        if self.activation_flag:
            out = self.activation(out)
        return out

    def extend_repr(self) -> str:
        text = f"input_channels={self.in_channels}, output_channels={self.out_channels}, has_bias={self.has_bias}"
        if self.activation_flag:
            text += f", activation={self.activation}"
        return text


class Conv2d(Cell):
    """NCHW convolution. MindSpore defaults: ``pad_mode='same'``, ``has_bias=False``; weight init
    HeUniform(sqrt(5)) then bias U(-1/sqrt(fan_in), 1/sqrt(fan_in)), drawn like torch.nn.Conv2d."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        pad_mode: str = "same",
        padding: Any = 0,
        dilation: Any = 1,
        group: int = 1,
        has_bias: bool = False,
        weight_init: Any = None,
        bias_init: Any = None,
        data_format: str = "NCHW",
        dtype: Any = _dtype.float32,
    ) -> None:
        super().__init__()
        if data_format != "NCHW":
            raise missing("mindspore.nn.Conv2d(data_format='NHWC')")
        if pad_mode != "pad" and padding not in (0, (0, 0, 0, 0)):
            raise ValueError(
                f"For 'Conv2d', the 'padding' must be zero when 'pad_mode' is not 'pad', but got {padding}."
            )
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = _conv.pair(kernel_size)
        self.stride, self.dilation = _conv.pair(stride), _conv.pair(dilation)
        self.pad_mode, self.padding, self.group = pad_mode, padding, group
        self.has_bias, self.data_format = has_bias, data_format
        shape = (out_channels, in_channels // group) + self.kernel_size
        if weight_init is None and bias_init is None:
            weight, bias = core.init_conv(
                out_channels, in_channels // group, self.kernel_size, has_bias
            )
            self.weight = Parameter(Tensor(weight, dtype), name="weight")
            self.bias = (
                Parameter(Tensor(bias, dtype), name="bias") if has_bias else None
            )
        else:
            if weight_init is None:
                weight_init = Tensor(core.init_kaiming_uniform(shape, a=math.sqrt(5)))
            self.weight = _param(weight_init, shape, "weight", dtype)
            if has_bias:
                if bias_init is None:
                    fan_in = shape[1] * shape[2] * shape[3]
                    bias_init = Tensor(
                        core.init_uniform((out_channels,), 1.0 / math.sqrt(fan_in))
                    )
                self.bias = _param(bias_init, (out_channels,), "bias", dtype)
            else:
                self.bias = None

    def construct(self, x: Any) -> Any:
        return _conv.conv2d_ms(
            x,
            self.weight,
            self.bias,
            self.stride,
            self.pad_mode,
            self.padding,
            self.dilation,
            self.group,
        )

    def extend_repr(self) -> str:
        return (
            f"input_channels={self.in_channels}, output_channels={self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}, pad_mode={self.pad_mode}, padding={self.padding}, dilation={self.dilation}, "
            f"group={self.group}, has_bias={self.has_bias}, weight_init=None, bias_init=None, format={self.data_format}"
        )


class _BatchNorm(Cell):
    """Moving statistics follow MindSpore: ``new = momentum * old + (1 - momentum) * batch``."""

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float = 0.9,
        affine: bool = True,
        gamma_init: Any = "ones",
        beta_init: Any = "zeros",
        moving_mean_init: Any = "zeros",
        moving_var_init: Any = "ones",
        use_batch_statistics: Any = None,
        data_format: str = "NCHW",
        dtype: Any = _dtype.float32,
    ) -> None:
        super().__init__()
        if data_format != "NCHW":
            raise missing(
                f"mindspore.nn.{type(self).__name__}(data_format={data_format!r})"
            )
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.use_batch_statistics = use_batch_statistics
        self.moving_mean = _param(
            moving_mean_init, (num_features,), "moving_mean", dtype, False
        )
        self.moving_variance = _param(
            moving_var_init, (num_features,), "moving_variance", dtype, False
        )
        self.gamma = _param(gamma_init, (num_features,), "gamma", dtype, affine)
        self.beta = _param(beta_init, (num_features,), "beta", dtype, affine)

    def _check_input(self, x: Any) -> None:
        pass

    def construct(self, x: Any) -> Any:
        self._check_input(x)
        use_batch = (
            self.training
            if self.use_batch_statistics is None
            else self.use_batch_statistics
        )
        if use_batch:
            # Updating the moving statistics only where MindSpore does: in training mode.
            update = self.training or self.use_batch_statistics is True
            return core.batch_norm(
                x,
                self.moving_mean if update else None,
                self.moving_variance if update else None,
                self.gamma,
                self.beta,
                True,
                1.0 - self.momentum,
                self.eps,
            )
        return core.batch_norm(
            x,
            self.moving_mean,
            self.moving_variance,
            self.gamma,
            self.beta,
            False,
            0.0,
            self.eps,
        )

    def extend_repr(self) -> str:
        return (
            f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, gamma={self.gamma}, "
            f"beta={self.beta}, moving_mean={self.moving_mean}, moving_variance={self.moving_variance}"
        )


class BatchNorm1d(_BatchNorm):
    def _check_input(self, x: Any) -> None:
        if x.ndim not in (2, 3):
            raise ValueError(
                f"For 'BatchNorm1d', the dimension of input should be 2 or 3, but got {x.ndim}."
            )


class BatchNorm2d(_BatchNorm):
    def _check_input(self, x: Any) -> None:
        if x.ndim != 4:
            raise ValueError(
                f"For 'BatchNorm2d', the dimension of input should be 4, but got {x.ndim}."
            )


class LayerNorm(Cell):
    """Normalises over the axes from ``begin_norm_axis``; note MindSpore's default ``epsilon=1e-7``."""

    def __init__(
        self,
        normalized_shape: Any,
        begin_norm_axis: int = -1,
        begin_params_axis: int = -1,
        gamma_init: Any = "ones",
        beta_init: Any = "zeros",
        epsilon: float = 1e-7,
        dtype: Any = _dtype.float32,
    ) -> None:
        super().__init__()
        if not isinstance(normalized_shape, (tuple, list)):
            raise TypeError(
                f"For 'LayerNorm', the type of 'normalized_shape' must be tuple[int] or list[int], but got {normalized_shape}."
            )
        self.normalized_shape = tuple(normalized_shape)
        self.begin_norm_axis, self.begin_params_axis, self.epsilon = (
            begin_norm_axis,
            begin_params_axis,
            epsilon,
        )
        self.gamma = _param(gamma_init, self.normalized_shape, "gamma", dtype)
        self.beta = _param(beta_init, self.normalized_shape, "beta", dtype)

    def construct(self, x: Any) -> Any:
        axis = self.begin_norm_axis % x.ndim
        axes = tuple(range(axis, x.ndim))
        mean = core.mean(x, axes, True)
        centred = core.sub(x, mean)
        var = core.mean(core.mul(centred, centred), axes, True)
        out = core.mul(centred, core.div(1.0, core.sqrt(core.add(var, self.epsilon))))
        params_axis = self.begin_params_axis % x.ndim
        shape = self.gamma.shape + (1,) * (x.ndim - params_axis - len(self.gamma.shape))
        gamma = (
            self.gamma if shape == self.gamma.shape else core.reshape(self.gamma, shape)
        )
        beta = self.beta if shape == self.beta.shape else core.reshape(self.beta, shape)
        return core.add(core.mul(out, gamma), beta)

    def extend_repr(self) -> str:
        return f"normalized_shape={list(self.normalized_shape)}, begin_norm_axis={self.begin_norm_axis}, begin_params_axis={self.begin_params_axis}, gamma{self.gamma}, beta={self.beta}"


class Embedding(Cell):
    """``embedding_table`` (vocab, size), default init Normal(sigma=0.01) (torch uses N(0, 1))."""

    def __init__(
        self,
        vocab_size: int,
        embedding_size: int,
        use_one_hot: bool = False,
        embedding_table: Any = "normal",
        dtype: Any = _dtype.int32,
        padding_idx: Any = None,
    ) -> None:
        super().__init__()
        self.vocab_size, self.embedding_size = vocab_size, embedding_size
        self.use_one_hot, self.padding_idx = use_one_hot, padding_idx
        table = initializer(
            embedding_table, (vocab_size, embedding_size), _dtype.float32
        ).init_data()
        if padding_idx is not None:
            table._data[padding_idx] = 0
        self.embedding_table = Parameter(table, name="embedding_table")

    def construct(self, ids: Any) -> Any:
        return core.embedding(self.embedding_table, np.asarray(core.raw(ids)))

    def extend_repr(self) -> str:
        return f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, use_one_hot={self.use_one_hot}, embedding_table={self.embedding_table}, dtype=Int32, padding_idx={self.padding_idx}"


class Dropout(Cell):
    """Zeroes with probability ``p`` (or ``1 - keep_prob``) in training mode; identity otherwise."""

    def __init__(
        self, keep_prob: Any = 0.5, p: Any = None, dtype: Any = _dtype.float32
    ) -> None:
        super().__init__()
        self.p = float(p) if p is not None else 1.0 - float(keep_prob)
        self.keep_prob = 1.0 - self.p

    def construct(self, x: Any) -> Any:
        if not self.training or self.p == 0.0:
            return x
        return core.dropout(x, self.p, True)

    def extend_repr(self) -> str:
        return f"p={self.p}"


class _Activation(Cell):
    fn: Any = None

    def construct(self, x: Any) -> Any:
        return type(self).fn(x)


class ReLU(_Activation):
    fn = staticmethod(core.relu)


class ReLU6(_Activation):
    fn = staticmethod(F.relu6)


class Tanh(_Activation):
    fn = staticmethod(core.tanh)


class Sigmoid(_Activation):
    fn = staticmethod(core.sigmoid)


class SiLU(_Activation):
    fn = staticmethod(F.silu)


class Identity(Cell):
    def construct(self, x: Any) -> Any:
        return x


class GELU(Cell):
    """MindSpore's default is the tanh approximation (``approximate=True``)."""

    def __init__(self, approximate: bool = True) -> None:
        super().__init__()
        self.approximate = approximate

    def construct(self, x: Any) -> Any:
        return core.gelu(x, "tanh" if self.approximate else "none")


class LeakyReLU(Cell):
    def __init__(self, alpha: float = 0.2) -> None:
        super().__init__()
        self.alpha = alpha

    def construct(self, x: Any) -> Any:
        return F.leaky_relu(x, self.alpha)


class ELU(Cell):
    def __init__(self, alpha: float = 1.0) -> None:
        super().__init__()
        self.alpha = alpha

    def construct(self, x: Any) -> Any:
        return F.elu(x, self.alpha)


class Softmax(Cell):
    def __init__(self, axis: int = -1) -> None:
        super().__init__()
        self.axis = axis

    def construct(self, x: Any) -> Any:
        return core.softmax(x, self.axis)


class LogSoftmax(Softmax):
    def construct(self, x: Any) -> Any:
        return core.log_softmax(x, self.axis)


class Flatten(Cell):
    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def construct(self, x: Any) -> Any:
        return core.flatten(x, self.start_dim, self.end_dim)


class _Pool2d(Cell):
    def __init__(
        self,
        kernel_size: Any = 1,
        stride: Any = 1,
        pad_mode: str = "valid",
        padding: Any = 0,
        ceil_mode: bool = False,
        data_format: str = "NCHW",
        **kwargs: Any,
    ) -> None:
        super().__init__()
        if data_format != "NCHW":
            raise missing(
                f"mindspore.nn.{type(self).__name__}(data_format={data_format!r})"
            )
        self.kernel_size = _conv.pair(kernel_size)
        self.stride = _conv.pair(stride)
        self.pad_mode = pad_mode.lower()
        self.padding, self.ceil_mode = padding, ceil_mode
        self.options = kwargs


class MaxPool2d(_Pool2d):
    def construct(self, x: Any) -> Any:
        if self.options.get("return_indices"):
            raise missing("mindspore.nn.MaxPool2d(return_indices=True)")
        x, padding = _conv.pool_pads(
            x, self.kernel_size, self.stride, self.pad_mode, self.padding, -np.inf
        )
        return core.max_pool2d(
            x,
            self.kernel_size,
            self.stride,
            padding,
            self.options.get("dilation", 1),
            self.ceil_mode,
        )


class AvgPool2d(_Pool2d):
    def construct(self, x: Any) -> Any:
        if self.pad_mode == "same":
            raise missing("mindspore.nn.AvgPool2d(pad_mode='same')")
        padding = self.padding if self.pad_mode == "pad" else 0
        return core.avg_pool2d(
            x,
            self.kernel_size,
            self.stride,
            padding,
            self.ceil_mode,
            self.options.get("count_include_pad", True),
            self.options.get("divisor_override"),
        )


_ACTIVATIONS = {
    "relu": ReLU,
    "relu6": ReLU6,
    "tanh": Tanh,
    "sigmoid": Sigmoid,
    "gelu": GELU,
    "softmax": Softmax,
    "logsoftmax": LogSoftmax,
    "silu": SiLU,
    "leakyrelu": LeakyReLU,
    "elu": ELU,
}


def get_activation(name: str, prim_name: Any = None) -> Cell:
    try:
        return _ACTIVATIONS[name.lower()]()
    except KeyError:
        raise missing(f"mindspore.nn activation {name!r}") from None
