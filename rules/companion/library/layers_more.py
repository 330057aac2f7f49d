"""Softmin/LogSoftmax with torch's implicit axis, Softshrink, Softplus, RMSNorm, the smooth
L1 loss with any `beta`, channel dropout of any rank and BatchNorm3d, with torch's arguments,
from ops with CPU kernels."""

import mindspore
from mindspore import Tensor, nn, ops
from mindspore.nn.layer.normalization import _BatchNorm as _MindSporeBatchNorm

from .functional import _in_place, rms_norm
from .layers import _TorchBatchNorm
from .losses import _legacy_reduction, _loss_reduced


def _softmax_axis(dim, ndim):
    """torch's axis for a softmax without `dim`: 0 for 0-, 1- and 3-D input, else 1."""
    if dim is not None:
        return dim
    return 0 if ndim in (0, 1, 3) else 1


class Softmin(nn.Cell):
    """`torch.nn.Softmin`: softmax of the negated input over `dim` (torch's legacy axis
    without it)."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def construct(self, input):
        return ops.softmax(-input, _softmax_axis(self.dim, input.ndim))


class LogSoftmax(nn.Cell):
    """`torch.nn.LogSoftmax`: log-softmax over `dim` (torch's legacy axis without it)."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def construct(self, input):
        # x - max - log(sum(exp(x - max))): within float32 rounding of torch's kernel, where
        # MindSpore's log_softmax kernel on CPU is a few ulps further off.
        axis = _softmax_axis(self.dim, input.ndim)
        shifted = input - input.max(axis=axis, keepdims=True)
        return shifted - ops.log(ops.exp(shifted).sum(axis=axis, keepdims=True))


def softshrink(input, lambd=0.5):
    """`torch.nn.functional.softshrink`: x - lambd above lambd, x + lambd below -lambd, else 0."""
    if lambd < 0:
        raise RuntimeError(
            f"lambda must be greater or equal to 0, but found to be {lambd}."
        )
    zero = ops.zeros_like(input)
    return ops.where(
        input > lambd, input - lambd, ops.where(input < -lambd, input + lambd, zero)
    )


class Softshrink(nn.Cell):
    """`torch.nn.Softshrink`: `softshrink` with torch's argument."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def construct(self, input):
        return softshrink(input, self.lambd)


class Softplus(nn.Cell):
    """`torch.nn.Softplus`: `log(1 + exp(beta * x)) / beta`, the input itself where
    `beta * x > threshold`, with torch's arguments."""

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def construct(self, input):
        return ops.softplus(input, self.beta, self.threshold)


class RMSNorm(nn.Cell):
    """`torch.nn.RMSNorm`: `rms_norm` over the trailing `normalized_shape` axes, scaled by a
    learned `weight` (ones) with `elementwise_affine`; `eps=None` is the input type's epsilon."""

    def __init__(
        self,
        normalized_shape,
        eps=None,
        elementwise_affine=True,
        device=None,
        dtype=None,
    ):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        self.weight = None
        if elementwise_affine:
            ones = ops.ones(self.normalized_shape, dtype or mindspore.float32)
            self.weight = mindspore.Parameter(ones, name="weight")

    def construct(self, input):
        return rms_norm(input, self.normalized_shape, self.weight, self.eps)


def smooth_l1_loss(
    input, target, size_average=None, reduce=None, reduction="mean", beta=1.0
):
    """`torch.nn.functional.smooth_l1_loss`: 0.5 d^2 / beta where |d| < beta, |d| - 0.5 beta
    elsewhere; with `beta=0` the L1 loss (MindSpore's kernel refuses it)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    difference = ops.abs(input - target)
    if beta == 0:
        loss = difference
    else:
        loss = ops.where(
            difference < beta, 0.5 * difference**2 / beta, difference - 0.5 * beta
        )
    return _loss_reduced(loss, reduction)


class SmoothL1Loss(nn.Cell):
    """`torch.nn.SmoothL1Loss`: `smooth_l1_loss` with torch's constructor arguments."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__()
        self.reduction = _legacy_reduction(size_average, reduce, reduction)
        self.beta = beta

    def construct(self, input, target):
        return smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


def _channel_dropout(input, p, training, inplace, rank):
    """torch's DropoutNd: whole channels of a (N, C, *spatial) or (C, *spatial) input are zeroed
    with probability `p` and the rest scaled by 1 / (1 - p), in training only."""
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    channels = input.ndim - rank
    shape = tuple(input.shape[:channels]) + (1,) * rank

    def dropped(x):
        if p == 1:
            return x * 0
        keep = (ops.rand(shape) >= p).astype(x.dtype)
        return x * keep / (1 - p)

    return _in_place(dropped, input, inplace)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """`torch.nn.functional.dropout1d` (see `_channel_dropout`)."""
    return _channel_dropout(input, p, training, inplace, 1)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """`torch.nn.functional.dropout2d` (see `_channel_dropout`)."""
    return _channel_dropout(input, p, training, inplace, 2)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """`torch.nn.functional.dropout3d` (see `_channel_dropout`)."""
    return _channel_dropout(input, p, training, inplace, 3)


class BatchNorm3d(_TorchBatchNorm, _MindSporeBatchNorm):
    """`torch.nn.BatchNorm3d` with torch's arguments and names (see `_TorchBatchNorm`): the
    statistics are per channel over every other axis, so (N, C, D, H, W) is normalised as
    (N, C, D, H * W) by MindSpore's 4-D kernel."""

    @staticmethod
    def _check_input_dim(shape, cls_name):
        if len(shape) != 4:
            raise ValueError(f"For '{cls_name}', expected a 5-D input")

    def construct(self, x):
        if x.ndim != 5:
            raise ValueError(f"expected 5D input (got {x.ndim}D input)")
        flat = x.reshape((x.shape[0], x.shape[1], x.shape[2], -1))
        return super().construct(flat).reshape(x.shape)


class BatchNormBase(_TorchBatchNorm, _MindSporeBatchNorm):
    """`torch.nn.modules.batchnorm._BatchNorm` built directly: torch's BatchNorm arguments and
    names (see `_TorchBatchNorm`) over (N, C), (N, C, L) or (N, C, H, W) input; type checks
    against MindSpore's `_BatchNorm` hold."""

    @staticmethod
    def _check_input_dim(shape, cls_name):
        if len(shape) not in (2, 3, 4):
            raise ValueError(
                f"For '{cls_name}', expected a 2-D to 4-D input, got {len(shape)}-D"
            )


class Bilinear(nn.BiDense):
    """`torch.nn.Bilinear`: MindSpore's BiDense (torch's weight layout, (out, in1, in2), and
    bias) with torch's arguments; `device` and `dtype` are accepted and change nothing."""

    def __init__(
        self,
        in1_features,
        in2_features,
        out_features,
        bias=True,
        device=None,
        dtype=None,
    ):
        super().__init__(in1_features, in2_features, out_features, has_bias=bias)
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features


def l1_loss(
    input, target, size_average=None, reduce=None, reduction="mean", weight=None
):
    """`torch.nn.functional.l1_loss`: |input - target|, reduced."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = ops.abs(input - target)
    if weight is not None:
        loss = loss * weight
    return _loss_reduced(loss, reduction)


def mse_loss(
    input, target, size_average=None, reduce=None, reduction="mean", weight=None
):
    """`torch.nn.functional.mse_loss`: (input - target)^2, reduced."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = (input - target) ** 2
    if weight is not None:
        loss = loss * weight
    return _loss_reduced(loss, reduction)


class MSELoss(nn.Cell):
    """`torch.nn.MSELoss` with torch's constructor arguments."""

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.reduction = _legacy_reduction(size_average, reduce, reduction)

    def construct(self, input, target):
        return mse_loss(input, target, reduction=self.reduction)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """`torch.nn.functional.huber_loss`: 0.5 d^2 where |d| < delta, delta (|d| - 0.5 delta)
    elsewhere."""
    difference = ops.abs(input - target)
    loss = ops.where(
        difference < delta, 0.5 * difference**2, delta * (difference - 0.5 * delta)
    )
    if weight is not None:
        loss = loss * weight
    return _loss_reduced(loss, reduction)


def one_hot(tensor, num_classes=-1):
    """`torch.nn.functional.one_hot`: int64 one-hot rows; without `num_classes`, one more than
    the largest index, as torch infers it."""
    if num_classes == -1:
        num_classes = int(tensor.max()) + 1
    on, off = Tensor(1, mindspore.int64), Tensor(0, mindspore.int64)
    return ops.one_hot(tensor, num_classes, on, off)
