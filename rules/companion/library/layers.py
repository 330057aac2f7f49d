"""Layer classes that take torch's constructor arguments, built on MindSpore's layers.

Each class derives from the MindSpore layer the API tables map the torch class to, so type checks
against that layer hold and it runs the same kernels. Parameters keep MindSpore's names (BatchNorm
`gamma`/`beta`/`moving_mean`/`moving_variance`, LayerNorm and GroupNorm `gamma`/`beta`, PReLU `w`,
Embedding `embedding_table`), which is what `torch2ms weights` writes; torch's names (`weight`,
`bias`, `running_mean`, `running_var`) are properties that return the same Parameter, so code
written for torch reads them (`self.weight`, `m.weight.set_data(...)`), and assigning a Parameter
to one assigns the MindSpore name (tied weights); assigning any other value to one of those names
raises AttributeError: assign the MindSpore name, or `set_data` through torch's. A parameter torch
does not have (`affine=False`, `bias=False`, `track_running_stats=False`) is a plain constant
tensor here, so it is neither trained nor written to a checkpoint. `inplace` and `device` are
accepted and change nothing; `dtype` is the dtype of Linear's and BatchNorm's floating-point
parameters (a float64 BatchNorm computes from reductions, which have float64 kernels where
MindSpore's BatchNorm has none), and is accepted by the other layers. Like every Cell, these start with `training=False`:
`set_train()` selects torch's training behaviour, and `self.training` reads it.
"""

from typing import ClassVar

from mindspore import Parameter, Tensor, nn, ops
from mindspore import dtype as mstype
from mindspore.common.initializer import Normal as NormalInitializer
from mindspore.nn.layer.normalization import _BatchNorm as _MindSporeBatchNorm

from .functional import _in_place, interpolate, rrelu
from .parameters import _reset_layer
from .unpooling import _frequency_scaled

_FLOAT_DTYPES = (mstype.float16, mstype.float32, mstype.float64, mstype.bfloat16)


def _parameters_in(cell, dtype):
    """torch's `dtype=` of a layer: its floating-point parameters made in that dtype."""
    if dtype is None or dtype == mstype.float32:
        return
    for param in cell.get_parameters():
        if param.dtype in _FLOAT_DTYPES:
            param.set_dtype(dtype)
    for name in ("moving_mean", "moving_variance", "gamma", "beta"):
        value = cell.__dict__.get(name)
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            setattr(cell, name, value.astype(dtype))


def _pair(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value, value)


def _single(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _sizes(value):
    """A size as MindSpore's layers take it: an int or a tuple (torch also takes a list)."""
    return tuple(value) if isinstance(value, list) else value


def _constant(value, shape):
    """A constant that stands where torch has no parameter (it is neither trained nor saved)."""
    return ops.fill(mstype.float32, shape, value)


class _TorchNames:
    """torch's parameter names (`weight`, `bias`, `running_mean`, ...) over MindSpore's (`gamma`,
    `beta`, `moving_mean`, ...): the subclasses define them as properties returning the
    MindSpore Parameter, so reads and `.set_data(...)` through them work. Assigning a Parameter
    to one assigns the MindSpore name: `decoder.weight = encoder.weight` ties the two layers, as
    in torch (MindSpore's Cell would otherwise store it under the torch name beside the real one
    and leave the computation unchanged). Assigning any other value is refused.

    Assigning None to a scale or shift (`self.bias = None`) removes the parameter, as torch does:
    it becomes a constant that changes nothing (a scale of 1, a shift of 0), which is neither
    trained nor saved, and torch's name reads None."""

    _torch_names: ClassVar[dict[str, str]] = {}
    # MindSpore parameters that assigning None replaces, with the constant that changes nothing.
    _neutral: ClassVar[dict[str, float]] = {"gamma": 1.0, "beta": 0.0}
    # torch's names whose parameter was removed by assigning None.
    _removed: ClassVar[frozenset] = frozenset()

    def __setattr__(self, name, value):
        if name in self._torch_names:
            target = self._torch_names[name]
            if value is None and target in self._neutral:
                shape = getattr(self, target).shape
                delattr(self, target)
                super().__setattr__(target, _constant(self._neutral[target], shape))
                super().__setattr__("_removed", self._removed | {name})
                return
            if isinstance(value, Parameter):
                # `dst.weight = src.weight` ties the two layers, as in torch.
                super().__setattr__(target, value)
                return
            raise AttributeError(
                f"{type(self).__name__}.{name} is torch's name for the MindSpore parameter "
                f"`{self._torch_names[name]}`: assign that name, or call `.{name}.set_data(value)`"
            )
        super().__setattr__(name, value)


class _TorchBatchNorm(_TorchNames):
    """torch's BatchNorm constructor, attributes and update rule, mixed into MindSpore's BatchNorm.

    MindSpore's `momentum` weighs the old statistics, torch's the new batch: the MindSpore layer is
    built with `1 - momentum`, and `self.momentum` holds torch's value (MindSpore's BatchNorm keeps
    that value there too). `momentum=None` (torch's cumulative average) divides by the number of
    batches seen. `track_running_stats=False` normalises with batch statistics in both modes.
    `num_batches_tracked` is a plain int64 tensor (not a Parameter), counted in training mode; a
    training step only counts in Python and the tensor is brought up to date when it is read (an
    op per step would make MindSpore's BatchNorm step several times slower on CPU)."""

    _torch_names: ClassVar[dict[str, str]] = {
        "weight": "gamma",
        "bias": "beta",
        "running_mean": "moving_mean",
        "running_var": "moving_variance",
    }

    def __init__(
        self,
        num_features,
        eps=1e-5,
        momentum=0.1,
        affine=True,
        track_running_stats=True,
        device=None,
        dtype=None,
        *,
        bias=True,
    ):
        super().__init__(
            num_features,
            eps=eps,
            momentum=0.9 if momentum is None else 1.0 - momentum,
            affine=affine,
            use_batch_statistics=None if track_running_stats else True,
        )
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        self._learns_bias = affine and bias
        self._uncounted = 0
        self.num_batches_tracked = (
            Tensor(0, mstype.int64) if track_running_stats else None
        )
        if not affine:
            del self.gamma
            self.gamma = _constant(1.0, (num_features,))
        if not self._learns_bias:
            del self.beta
            self.beta = _constant(0.0, (num_features,))
        if not track_running_stats:
            # Batch statistics only: the kernel still writes an average, into scratch tensors.
            del self.moving_mean, self.moving_variance
            self.moving_mean = _constant(0.0, (num_features,))
            self.moving_variance = _constant(1.0, (num_features,))
        _parameters_in(self, dtype)

    @property
    def weight(self):
        return self.gamma if self.affine and "weight" not in self._removed else None

    @property
    def bias(self):
        return self.beta if self._learns_bias and "bias" not in self._removed else None

    @property
    def running_mean(self):
        return self.moving_mean if self.track_running_stats else None

    @property
    def running_var(self):
        return self.moving_variance if self.track_running_stats else None

    @property
    def num_batches_tracked(self):
        counter = self._batches
        if self._uncounted and counter is not None:
            ops.assign(counter, counter + self._uncounted)
            self._uncounted = 0
        return counter

    @num_batches_tracked.setter
    def num_batches_tracked(self, value):
        self._batches = value
        self._uncounted = 0

    def construct(self, x):
        if x.dtype == mstype.float64:
            return self._composed(x)
        if self.training and self.track_running_stats:
            self._uncounted += 1
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked)
                return ops.batch_norm(
                    x,
                    self.moving_mean,
                    self.moving_variance,
                    self.gamma,
                    self.beta,
                    True,
                    factor,
                    self.eps,
                )
        return super().construct(x)

    def _composed(self, x):
        """torch's batch norm from reductions in the input's dtype (float64, which MindSpore
        2.10's CPU BatchNorm kernel does not take). Python numbers become tensors of that dtype
        first: MindSpore would take them as float32."""
        dtype = x.dtype
        axes = (0, *range(2, x.ndim))
        shape = (1, -1) + (1,) * (x.ndim - 2)
        if self.training or not self.track_running_stats:
            mean = x.mean(axis=axes)
            var = ((x - mean.reshape(shape)) ** 2).mean(axis=axes)
            if self.training and self.track_running_stats:
                self._uncounted += 1
                count = x.size // x.shape[1]
                factor = (
                    1.0 / float(self.num_batches_tracked)
                    if self.momentum is None
                    else self.momentum
                )
                unbiased = var * Tensor(count / max(count - 1, 1), dtype)
                for stat, value in (
                    (self.moving_mean, mean),
                    (self.moving_variance, unbiased),
                ):
                    kept = Tensor(1.0 - factor, stat.dtype)
                    ops.assign(
                        stat, stat * kept + value.astype(stat.dtype) * (1.0 - kept)
                    )
        else:
            mean = self.moving_mean.astype(dtype)
            var = self.moving_variance.astype(dtype)
        y = (x - mean.reshape(shape)) / ops.sqrt(
            var.reshape(shape) + Tensor(self.eps, dtype)
        )
        gamma = self.gamma.astype(dtype).reshape(shape)
        return y * gamma + self.beta.astype(dtype).reshape(shape)

    def extend_repr(self):
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, track_running_stats={self.track_running_stats}"
        )

    def reset_parameters(self):
        """torch's `reset_parameters()` of this layer (see `_reset_layer`)."""
        _reset_layer(self)


class BatchNorm1d(_TorchBatchNorm, nn.BatchNorm1d):
    """`torch.nn.BatchNorm1d`: MindSpore's BatchNorm1d with torch's arguments and names
    (see `_TorchBatchNorm`)."""


class BatchNorm2d(_TorchBatchNorm, nn.BatchNorm2d):
    """`torch.nn.BatchNorm2d`: MindSpore's BatchNorm2d with torch's arguments and names
    (see `_TorchBatchNorm`)."""


class SyncBatchNorm(_TorchBatchNorm, _MindSporeBatchNorm):
    """`torch.nn.SyncBatchNorm` on one device: BatchNorm over (N, C), (N, C, L) or (N, C, H, W)
    inputs with torch's arguments and names (see `_TorchBatchNorm`). A `process_group` would
    synchronise statistics across devices, which this class does not do: it raises."""

    def __init__(
        self,
        num_features,
        eps=1e-5,
        momentum=0.1,
        affine=True,
        track_running_stats=True,
        process_group=None,
        device=None,
        dtype=None,
        *,
        bias=True,
    ):
        if process_group is not None:
            raise NotImplementedError(
                "SyncBatchNorm: process_group (statistics across devices) is not supported; "
                "use mindspore.nn.SyncBatchNorm inside a communication group"
            )
        super().__init__(
            num_features, eps, momentum, affine, track_running_stats, bias=bias
        )

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """`SyncBatchNorm.convert_sync_batchnorm(module)`: in one process torch's SyncBatchNorm
        computes what its BatchNorm computes, so the module is returned as it is. Statistics
        across devices (`process_group`) are not supported: it raises."""
        if process_group is not None:
            raise NotImplementedError(
                "SyncBatchNorm.convert_sync_batchnorm: process_group (statistics across "
                "devices) is not supported; use mindspore.nn.SyncBatchNorm inside a "
                "communication group"
            )
        return module

    @staticmethod
    def _check_input_dim(shape, cls_name):
        if len(shape) not in (2, 3, 4):
            raise ValueError(
                f"For '{cls_name}', expected a 2-D to 4-D input, got {len(shape)}-D"
            )


class LayerNorm(_TorchNames, nn.LayerNorm):
    """`torch.nn.LayerNorm`: MindSpore's LayerNorm with torch's `eps` default (1e-5). Over several
    trailing axes, the input is flattened to one (MindSpore's kernel takes only -1 as a negative
    axis). Without `elementwise_affine` (or without `bias`) the scale (or shift) is a constant, as
    torch has no parameter there."""

    _torch_names: ClassVar[dict[str, str]] = {"weight": "gamma", "bias": "beta"}

    def __init__(
        self,
        normalized_shape,
        eps=1e-5,
        elementwise_affine=True,
        bias=True,
        device=None,
        dtype=None,
    ):
        shape = _single(normalized_shape)
        super().__init__(shape, epsilon=eps)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        self._learns_bias = elementwise_affine and bias
        if not elementwise_affine:
            del self.gamma
            self.gamma = _constant(1.0, shape)
        if not self._learns_bias:
            del self.beta
            self.beta = _constant(0.0, shape)

    @property
    def weight(self):
        keep = self.elementwise_affine and "weight" not in self._removed
        return self.gamma if keep else None

    def construct(self, x):
        if len(self.normalized_shape) == 1:
            return super().construct(x)
        leading = x.shape[: x.ndim - len(self.normalized_shape)]
        flat = x.reshape(leading + (-1,))
        gamma = self.gamma.reshape(-1).astype(x.dtype)
        beta = self.beta.reshape(-1).astype(x.dtype)
        return self.layer_norm(flat, gamma, beta)[0].reshape(x.shape)

    @property
    def bias(self):
        return self.beta if self._learns_bias and "bias" not in self._removed else None

    def reset_parameters(self):
        """torch's `reset_parameters()` of this layer (see `_reset_layer`)."""
        _reset_layer(self)


class GroupNorm(_TorchNames, nn.GroupNorm):
    """`torch.nn.GroupNorm`: MindSpore's GroupNorm with torch's arguments; without `affine` (or
    `bias`) the scale (or shift) is a constant, as torch has no parameter there."""

    _torch_names: ClassVar[dict[str, str]] = {"weight": "gamma", "bias": "beta"}

    def __init__(
        self,
        num_groups,
        num_channels,
        eps=1e-5,
        affine=True,
        device=None,
        dtype=None,
        *,
        bias=True,
    ):
        super().__init__(num_groups, num_channels, eps=float(eps), affine=affine)
        self._learns_bias = affine and bias
        if not affine:
            del self.gamma
            self.gamma = _constant(1.0, (num_channels,))
        if not self._learns_bias:
            del self.beta
            self.beta = _constant(0.0, (num_channels,))

    @property
    def weight(self):
        return self.gamma if self.affine and "weight" not in self._removed else None

    @property
    def bias(self):
        return self.beta if self._learns_bias and "bias" not in self._removed else None

    def reset_parameters(self):
        """torch's `reset_parameters()` of this layer (see `_reset_layer`)."""
        _reset_layer(self)


class Linear(nn.Dense):
    """`torch.nn.Linear`: MindSpore's Dense (same weight layout and initialisation)."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__(in_features, out_features, has_bias=bias)
        self.in_features = in_features
        self.out_features = out_features
        _parameters_in(self, dtype)

    def reset_parameters(self):
        """torch's `reset_parameters()` of this layer (see `_reset_layer`)."""
        _reset_layer(self)


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


class Conv2d(_TorchConv, nn.Conv2d):
    """`torch.nn.Conv2d`: MindSpore's Conv2d with explicit per-side padding (torch's 'same' puts
    the odd pixel after), torch's `bias=True` default and its attributes."""

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
            _pair(kernel_size),
            _pair(stride),
            _pair(dilation),
        )
        (top, bottom), (left, right) = _conv_padding(
            padding, kernel_size, stride, dilation, 2
        )
        zeros = padding_mode == "zeros"
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride=stride,
            pad_mode="pad",
            padding=(top, bottom, left, right) if zeros else 0,
            dilation=dilation,
            group=groups,
            has_bias=bias,
        )
        self._input_pad = None if zeros else (left, right, top, bottom)
        if not isinstance(padding, str):
            padding = _pair(padding)
        self._torch_attributes(
            kernel_size, stride, padding, dilation, groups, padding_mode
        )
        self.output_padding = (0, 0)

    def construct(self, x):
        return super().construct(self._pad_input(x))


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


class AvgPool2d(nn.AvgPool2d):
    """`torch.nn.AvgPool2d`: MindSpore's AvgPool2d with torch's `stride=kernel_size` default;
    sizes given as lists are taken as tuples."""

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        ceil_mode=False,
        count_include_pad=True,
        divisor_override=None,
    ):
        stride = kernel_size if stride is None else stride
        kernel_size, stride, padding = (
            _sizes(kernel_size),
            _sizes(stride),
            _sizes(padding),
        )
        # Without padding or ceil_mode every window lies inside the input: count_include_pad means
        # nothing, and MindSpore's plain kernel runs. Otherwise its padded kernel (pad_mode='pad':
        # the gradient of the 'valid' form with ceil_mode fails on CPU).
        plain = padding in (0, (0, 0)) and not ceil_mode and divisor_override is None
        super().__init__(
            kernel_size=kernel_size,
            stride=stride,
            pad_mode="valid" if plain else "pad",
            padding=padding,
            ceil_mode=ceil_mode,
            count_include_pad=True if plain else count_include_pad,
            divisor_override=divisor_override,
        )
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override


class MaxPool2d(nn.MaxPool2d):
    """`torch.nn.MaxPool2d`: MindSpore's MaxPool2d with torch's `stride=kernel_size` default; with
    padding, dilation or ceil_mode it runs MindSpore's padded max-pool kernel. Sizes given as lists
    are taken as tuples. `return_indices` is not supported (the indices differ): it raises."""

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        dilation=1,
        return_indices=False,
        ceil_mode=False,
    ):
        if return_indices:
            raise NotImplementedError("MaxPool2d: return_indices is not supported")
        stride = kernel_size if stride is None else stride
        kernel_size, stride = _sizes(kernel_size), _sizes(stride)
        padding, dilation = _sizes(padding), _sizes(dilation)
        plain = padding in (0, (0, 0)) and dilation in (1, (1, 1)) and not ceil_mode
        if plain:
            super().__init__(kernel_size=kernel_size, stride=stride)
        else:
            super().__init__(
                kernel_size=kernel_size,
                stride=stride,
                pad_mode="pad",
                padding=padding,
                dilation=dilation,
                ceil_mode=ceil_mode,
            )
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.ceil_mode = ceil_mode


class AdaptiveAvgPool2d(nn.AdaptiveAvgPool2d):
    """`torch.nn.AdaptiveAvgPool2d`: MindSpore's AdaptiveAvgPool2d (same arguments)."""

    def __init__(self, output_size):
        super().__init__(output_size)
        self.output_size = output_size


class Flatten(nn.Flatten):
    """`torch.nn.Flatten`: MindSpore's Flatten (same arguments)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__(start_dim, end_dim)
        self.start_dim = start_dim
        self.end_dim = end_dim


class Identity(nn.Identity):
    """`torch.nn.Identity`: MindSpore's Identity; torch ignores its arguments, so does this."""

    def __init__(self, *args, **kwargs):
        super().__init__()


class Dropout(nn.Dropout):
    """`torch.nn.Dropout`: MindSpore's Dropout with `p` (the probability of zeroing), active only
    after `set_train()`; `inplace=True` writes the result into the input, as torch does."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__(p=p)
        self.inplace = inplace

    def construct(self, x):
        return _in_place(super().construct, x, self.inplace)


class GELU(nn.GELU):
    """`torch.nn.GELU`: MindSpore's GELU; torch's `approximate='none'` (erf, the default) or
    `'tanh'`."""

    def __init__(self, approximate="none"):
        if approximate not in ("none", "tanh"):
            raise ValueError(
                f"approximate must be 'none' or 'tanh', got {approximate!r}"
            )
        super().__init__(approximate=approximate == "tanh")


class _InPlace:
    """torch's activations take `inplace`: with True the result is written into the input and
    the input returned, so code that reads the input afterwards sees the new values."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def construct(self, x):
        return _in_place(super().construct, x, self.inplace)


class ReLU(_InPlace, nn.ReLU):
    """`torch.nn.ReLU`: MindSpore's ReLU, written into the input with `inplace=True`."""


class ReLU6(_InPlace, nn.ReLU6):
    """`torch.nn.ReLU6`: MindSpore's ReLU6, written into the input with `inplace=True`."""


class SiLU(_InPlace, nn.SiLU):
    """`torch.nn.SiLU`: MindSpore's SiLU, written into the input with `inplace=True`."""


class Mish(_InPlace, nn.Mish):
    """`torch.nn.Mish`: MindSpore's Mish, written into the input with `inplace=True`."""


class Hardswish(_InPlace, nn.HSwish):
    """`torch.nn.Hardswish`: MindSpore's HSwish, written into the input with `inplace=True`."""


class Hardsigmoid(_InPlace, nn.HSigmoid):
    """`torch.nn.Hardsigmoid`: MindSpore's HSigmoid, written into the input with
    `inplace=True`."""


class SELU(_InPlace, nn.SeLU):
    """`torch.nn.SELU`: MindSpore's SeLU, written into the input with `inplace=True`."""


class LeakyReLU(nn.LeakyReLU):
    """`torch.nn.LeakyReLU`: MindSpore's LeakyReLU with `alpha=negative_slope` (torch's default
    0.01), written into the input with `inplace=True`."""

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__(alpha=negative_slope)
        self.negative_slope = negative_slope
        self.inplace = inplace

    def construct(self, x):
        return _in_place(super().construct, x, self.inplace)


class ELU(nn.ELU):
    """`torch.nn.ELU`: MindSpore's ELU; its kernel takes only alpha=1, other values are computed
    as relu(x) + alpha * expm1(min(x, 0)). Written into the input with `inplace=True`."""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def construct(self, x):
        if self.alpha == 1.0:
            return _in_place(super().construct, x, self.inplace)
        return _in_place(self._elu, x, self.inplace)

    def _elu(self, x):
        return ops.relu(x) + self.alpha * ops.expm1(ops.minimum(x, 0.0))


class CELU(nn.CELU):
    """`torch.nn.CELU`: MindSpore's CELU, written into the input with `inplace=True`."""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__(alpha=alpha)
        self.alpha = alpha
        self.inplace = inplace

    def construct(self, x):
        return _in_place(super().construct, x, self.inplace)


class Hardtanh(nn.Hardtanh):
    """`torch.nn.Hardtanh`: MindSpore's Hardtanh, written into the input with `inplace=True`."""

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__(min_val, max_val)
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def construct(self, x):
        return _in_place(super().construct, x, self.inplace)


class Threshold(nn.Threshold):
    """`torch.nn.Threshold`: MindSpore's Threshold, written into the input with
    `inplace=True`."""

    def __init__(self, threshold, value, inplace=False):
        super().__init__(threshold, value)
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def construct(self, x):
        return _in_place(super().construct, x, self.inplace)


class RReLU(nn.Cell):
    """`torch.nn.RReLU`: random negative slopes from [lower, upper] in training, their mean
    after `set_train(False)`; written into the input with `inplace=True`."""

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def construct(self, x):
        return rrelu(x, self.lower, self.upper, self.training, self.inplace)


class Sigmoid(nn.Sigmoid):
    """`torch.nn.Sigmoid`: MindSpore's Sigmoid; torch ignores its arguments, so does this."""

    def __init__(self, *args, **kwargs):
        super().__init__()


class Tanh(nn.Tanh):
    """`torch.nn.Tanh`: MindSpore's Tanh; torch ignores its arguments, so does this."""

    def __init__(self, *args, **kwargs):
        super().__init__()


class Softmax(nn.Softmax):
    """`torch.nn.Softmax`: MindSpore's Softmax over `dim`; without `dim`, torch's legacy choice
    (axis 0 for 0-, 1- and 3-D inputs, else axis 1)."""

    def __init__(self, dim=None):
        super().__init__(axis=-1 if dim is None else dim)
        self.dim = dim

    def construct(self, x):
        if self.dim is None:
            return ops.softmax(x, 0 if x.ndim in (0, 1, 3) else 1)
        return super().construct(x)


class PReLU(_TorchNames, nn.PReLU):
    """`torch.nn.PReLU`: MindSpore's PReLU; its slope Parameter is `w` (torch's `weight`, a
    read-only property here)."""

    _torch_names: ClassVar[dict[str, str]] = {"weight": "w"}

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__(channel=num_parameters, w=float(init))
        self.num_parameters = num_parameters
        self.init = init

    @property
    def weight(self):
        return self.w


class Embedding(_TorchNames, nn.Embedding):
    """`torch.nn.Embedding`: MindSpore's Embedding with torch's N(0, 1) initialisation; the
    `padding_idx` row starts at zero and receives no gradient, as in torch; with
    `scale_grad_by_freq` each row's gradient is divided by how often the batch names it.
    `max_norm` and `sparse` are not supported: they raise."""

    _torch_names: ClassVar[dict[str, str]] = {"weight": "embedding_table"}

    def __init__(
        self,
        num_embeddings,
        embedding_dim,
        padding_idx=None,
        max_norm=None,
        norm_type=2.0,
        scale_grad_by_freq=False,
        sparse=False,
        _weight=None,
        _freeze=False,
        device=None,
        dtype=None,
    ):
        for name, value in (
            ("max_norm", max_norm is not None),
            ("sparse", sparse),
        ):
            if value:
                raise NotImplementedError(f"Embedding: {name} is not supported")
        if padding_idx is not None and padding_idx < 0:
            padding_idx += num_embeddings
        super().__init__(
            num_embeddings,
            embedding_dim,
            embedding_table=NormalInitializer(1.0) if _weight is None else _weight,
            padding_idx=padding_idx,
        )
        self.embedding_table.requires_grad = not _freeze
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.sparse = sparse
        if padding_idx is not None:
            keep = ops.ones((num_embeddings, 1), mstype.float32)
            keep[padding_idx] = 0.0
            self._trained_rows = keep

    @property
    def weight(self):
        return self.embedding_table

    def reset_parameters(self):
        """torch's `reset_parameters()` of this layer (see `_reset_layer`)."""
        _reset_layer(self)

    def construct(self, ids):
        if self.padding_idx is None and not self.scale_grad_by_freq:
            return super().construct(ids)
        table = self.embedding_table
        if self.padding_idx is not None:
            rows = self._trained_rows
            table = table * rows + ops.stop_gradient(table) * (1.0 - rows)
        if self.scale_grad_by_freq:
            return _frequency_scaled(table, ids)
        return ops.gather(table, ids, 0)


class CrossEntropyLoss(nn.CrossEntropyLoss):
    """`torch.nn.CrossEntropyLoss`: MindSpore's class computing with `ops.cross_entropy`, taking
    torch's constructor (MindSpore 2.10's nn.CrossEntropyLoss has no CPU kernel for torch's int64
    class labels).

    Class indices or class probabilities as targets, `weight`, `ignore_index`, `reduction` and
    `label_smoothing` mean what they mean in torch; the deprecated `size_average`/`reduce` are
    read as torch reads them."""

    def __init__(
        self,
        weight=None,
        size_average=None,
        ignore_index=-100,
        reduce=None,
        reduction="mean",
        label_smoothing=0.0,
    ):
        if size_average is not None or reduce is not None:
            if reduce is False:
                reduction = "none"
            else:
                reduction = "sum" if size_average is False else "mean"
        super().__init__(weight, ignore_index, reduction, label_smoothing)
        self.weight = weight
        self.ignore_index = ignore_index
        self.reduction = reduction
        self.label_smoothing = label_smoothing

    def construct(self, input, target):
        return ops.cross_entropy(
            input,
            target,
            weight=self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
            label_smoothing=self.label_smoothing,
        )


class Upsample(nn.Upsample):
    """`torch.nn.Upsample`: torch's constructor (an int, float or tuple `scale_factor`, which
    MindSpore's Upsample refuses unless it is a float), computed by the companion `interpolate`
    as `F.interpolate` computes it."""

    def __init__(
        self,
        size=None,
        scale_factor=None,
        mode="nearest",
        align_corners=None,
        recompute_scale_factor=None,
    ):
        # MindSpore's checks refuse torch's int scale factors: its Cell setup only.
        nn.Cell.__init__(self)
        self.size = size
        self.scale_factor = scale_factor
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def construct(self, input):
        return interpolate(
            input,
            self.size,
            self.scale_factor,
            self.mode,
            self.align_corners,
            self.recompute_scale_factor,
        )
