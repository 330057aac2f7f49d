"""Companion module written by torch2ms for the code converted beside it.

It holds what has no one-line MindSpore idiom: layer classes that take torch's constructor
arguments (they flow as values, or are subclassed), functions composed from operators that have
kernels on the target, and stand-ins for torch-only plumbing, each saying what it does.
Only the entries this tree uses are here. Entries: calculate_fan_in_and_fan_out, write_out, linspace, BatchNorm1d, Linear, calculate_gain, init_uniform_, init_normal_, init_kaiming_uniform_, module_cast.
"""

import math
import mindspore
import numpy as np
from mindspore import Parameter, Tensor, dtype as mstype, nn, ops
from mindspore.nn.layer.conv import _Conv as _MindSporeConv
from mindspore.nn.layer.normalization import _BatchNorm as _MindSporeBatchNorm
from typing import ClassVar


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


def write_out(out, value):
    """torch's `out=t`: the result written into `t` (in t's dtype, resized when its shape differs,
    as torch resizes it), and `t` returned; a tuple or list of outputs takes the results in order."""
    if isinstance(out, (tuple, list)):
        for target, result in zip(out, value):
            write_out(target, result)
        return out
    if value.dtype != out.dtype:
        value = value.astype(out.dtype)
    if tuple(value.shape) == tuple(out.shape):
        ops.assign(out, value)
    else:
        out.assign_value(value)
    return out


def _written(out, result):
    """torch's `out=`: the result written into `out` (see `write_out`), else the result."""
    return result if out is None else write_out(out, result)


def linspace(start, end, steps, *, out=None, dtype=None, **placement):
    """`torch.linspace` with `dtype`: the float32 points cast to it (an integer dtype truncates,
    as torch does)."""
    points = ops.linspace(float(start), float(end), steps)
    return _written(out, points if dtype is None else points.astype(dtype))


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


def _cells(module, prefix, recurse, remove_duplicate):
    """(dotted name, cell) for `module` and, with `recurse`, every sub-cell, as torch's
    `named_modules` walks them; a shared cell comes once when `remove_duplicate`."""
    seen = set()
    stack = [(prefix, module)]
    while stack:
        name, cell = stack.pop()
        if remove_duplicate:
            if id(cell) in seen:
                continue
            seen.add(id(cell))
        yield name, cell
        if not recurse:
            return
        children = [
            (f"{name}.{child_name}" if name else child_name, child)
            for child_name, child in cell._cells.items()
            if child is not None
        ]
        stack.extend(reversed(children))


_CAST_TYPES = {
    "float": mindspore.float32,
    "half": mindspore.float16,
    "double": mindspore.float64,
    "bfloat16": mindspore.bfloat16,
}


def module_cast(module, method):
    """`module.float()` / `half()` / `double()` / `bfloat16()`: every floating-point Parameter
    and buffer of the cell and its sub-cells cast in place; returns the cell, as torch's do."""
    if not isinstance(module, mindspore.nn.Cell):
        return getattr(module, method)()
    dtype = _CAST_TYPES[method]
    for _, cell in _cells(module, "", True, True):
        for param in cell._params.values():
            if param is not None and param.dtype in _FLOATING:
                param.set_dtype(dtype)
        buffers = getattr(cell, "_buffers", {})
        for name, value in list(buffers.items()):
            if value is not None and value.dtype in _FLOATING:
                buffers[name] = value.astype(dtype)
    return module


_FLOATING = (
    mindspore.float16,
    mindspore.float32,
    mindspore.float64,
    mindspore.bfloat16,
)
