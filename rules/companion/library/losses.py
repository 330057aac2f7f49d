"""Losses and transposed convolutions MindSpore 2.10 has no CPU kernel for, from ops that run
there.

The losses take torch's arguments, including the deprecated `size_average`/`reduce`, which
select the reduction as torch's `legacy_get_string` does.
"""

import math

import mindspore
from mindspore import nn, ops


def _legacy_reduction(size_average, reduce, reduction):
    """torch's reduction when the deprecated `size_average`/`reduce` are given: `reduce=False`
    is 'none', else `size_average=False` is 'sum', else 'mean' (each defaults to True)."""
    if size_average is None and reduce is None:
        return reduction
    if reduce is not None and not reduce:
        return "none"
    return "sum" if size_average is not None and not size_average else "mean"


def _loss_reduced(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """`torch.nn.functional.pairwise_distance`: the p-norm of `x1 - x2 + eps` over the last
    dimension."""
    diff = ops.abs(x1 - x2 + eps)
    if p == math.inf:
        return diff.max(axis=-1, keepdims=keepdim)
    if p == 0:
        return (diff != 0).astype(diff.dtype).sum(axis=-1, keepdims=keepdim)
    return ops.pow(ops.pow(diff, p).sum(axis=-1, keepdims=keepdim), 1.0 / p)


class PairwiseDistance(nn.Cell):
    """`torch.nn.PairwiseDistance`: `pairwise_distance` with torch's constructor arguments."""

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def construct(self, x1, x2):
        return pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(nn.Cell):
    """`torch.nn.CosineSimilarity`: `ops.cosine_similarity` over `dim`."""

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def construct(self, x1, x2):
        return ops.cosine_similarity(x1, x2, self.dim, self.eps)


def triplet_margin_loss(
    anchor,
    positive,
    negative,
    margin=1.0,
    p=2.0,
    eps=1e-6,
    swap=False,
    size_average=None,
    reduce=None,
    reduction="mean",
):
    """`torch.nn.functional.triplet_margin_loss`: max(d(a, p) - d(a, n) + margin, 0), with
    d(a, n) replaced by min(d(a, n), d(p, n)) when `swap`."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    positive_distance = pairwise_distance(anchor, positive, p, eps)
    negative_distance = pairwise_distance(anchor, negative, p, eps)
    if swap:
        swapped = pairwise_distance(positive, negative, p, eps)
        negative_distance = ops.minimum(negative_distance, swapped)
    loss = ops.clamp(margin + positive_distance - negative_distance, min=0.0)
    return _loss_reduced(loss, reduction)


class TripletMarginLoss(nn.Cell):
    """`torch.nn.TripletMarginLoss` with torch's constructor arguments."""

    def __init__(
        self,
        margin=1.0,
        p=2.0,
        eps=1e-6,
        swap=False,
        size_average=None,
        reduce=None,
        reduction="mean",
    ):
        super().__init__()
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap
        self.reduction = _legacy_reduction(size_average, reduce, reduction)

    def construct(self, anchor, positive, negative):
        return triplet_margin_loss(
            anchor,
            positive,
            negative,
            self.margin,
            self.p,
            self.eps,
            self.swap,
            reduction=self.reduction,
        )


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """`torch.nn.functional.soft_margin_loss`: log(1 + exp(-target * input))."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _loss_reduced(ops.softplus(-target * input), reduction)


class SoftMarginLoss(nn.Cell):
    """`torch.nn.SoftMarginLoss` with torch's constructor arguments."""

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.reduction = _legacy_reduction(size_average, reduce, reduction)

    def construct(self, input, target):
        return soft_margin_loss(input, target, reduction=self.reduction)


def binary_cross_entropy(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean"
):
    """`torch.nn.functional.binary_cross_entropy`: `ops.binary_cross_entropy` with `weight`
    broadcast to the input's shape first (MindSpore's CPU kernel reads a smaller weight as if it
    had the input's shape)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if weight is not None:
        weight = ops.broadcast_to(weight.astype(input.dtype), input.shape)
    return ops.binary_cross_entropy(input, target, weight, reduction=reduction)


class BCELoss(nn.Cell):
    """`torch.nn.BCELoss` with torch's constructor arguments and broadcast `weight`."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.weight = weight
        self.reduction = _legacy_reduction(size_average, reduce, reduction)

    def construct(self, input, target):
        return binary_cross_entropy(input, target, self.weight, reduction=self.reduction)


def kl_div(
    input,
    target,
    size_average=None,
    reduce=None,
    reduction="mean",
    log_target=False,
):
    """`torch.nn.functional.kl_div`: target * (log(target) - input), 0 where target is 0 (or
    exp(target) * (target - input) with `log_target`); 'batchmean' divides the sum by the
    batch size."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if log_target:
        loss = ops.exp(target) * (target - input)
    else:
        positive = target > 0
        safe = ops.where(positive, target, ops.ones_like(target))
        loss = ops.where(positive, target * (ops.log(safe) - input), ops.zeros_like(input))
    if reduction == "batchmean":
        return loss.sum() / (input.shape[0] if input.ndim else 1)
    return _loss_reduced(loss, reduction)


class KLDivLoss(nn.Cell):
    """`torch.nn.KLDivLoss` with torch's constructor arguments (`log_target` included)."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__()
        self.reduction = _legacy_reduction(size_average, reduce, reduction)
        self.log_target = log_target

    def construct(self, input, target):
        return kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


def hinge_embedding_loss(
    input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"
):
    """`torch.nn.functional.hinge_embedding_loss`: input where target is not -1, plus
    max(0, margin - input) where target is not 1 (targets of any dtype)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    zeros = ops.zeros_like(input)
    hinge = ops.clamp(margin - input, min=0.0)
    loss = ops.where(target != 1, hinge, zeros) + ops.where(target != -1, input, zeros)
    return _loss_reduced(loss, reduction)


class HingeEmbeddingLoss(nn.Cell):
    """`torch.nn.HingeEmbeddingLoss` with torch's constructor arguments."""

    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.margin = margin
        self.reduction = _legacy_reduction(size_average, reduce, reduction)

    def construct(self, input, target):
        return hinge_embedding_loss(input, target, self.margin, reduction=self.reduction)


def _each(value, rank):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * rank


def _crop(output, axis, start, stop):
    """``output[start:stop]`` along ``axis``, zeros where ``stop`` runs past the end."""
    size = output.shape[axis]
    if stop > size:
        shape = list(output.shape)
        shape[axis] = stop - size
        output = ops.cat([output, ops.zeros(tuple(shape), output.dtype)], axis)
    return ops.narrow(output, axis, start, stop - start)


def conv_transpose2d(
    input,
    weight,
    bias=None,
    stride=1,
    padding=0,
    output_padding=0,
    groups=1,
    dilation=1,
):
    """`torch.nn.functional.conv_transpose2d`: MindSpore's Conv2DTranspose primitive (which
    takes torch's weight layout, (in, out / groups, kH, kW)) without padding, then torch's
    `padding` cut from each side and `output_padding` added at the end."""
    unbatched = input.ndim == 3
    if unbatched:
        input = input.expand_dims(0)
    stride, padding = _each(stride, 2), _each(padding, 2)
    output_padding, dilation = _each(output_padding, 2), _each(dilation, 2)
    kernel = tuple(weight.shape[2:])
    channels = weight.shape[1] * groups
    full = [
        (size - 1) * s + d * (k - 1) + 1
        for size, s, d, k in zip(input.shape[2:], stride, dilation, kernel)
    ]
    dtype = input.dtype
    if dtype not in (mindspore.float16, mindspore.float32):
        input, weight = input.astype(mindspore.float32), weight.astype(mindspore.float32)
    # The primitive is the input gradient of a convolution from `channels` to the input's
    # channels: its `out_channel` is that convolution's, the input's channel count.
    transpose = ops.Conv2DTranspose(
        weight.shape[0],
        kernel,
        pad_mode="valid",
        stride=stride,
        dilation=dilation,
        group=groups,
    )
    output = transpose(input, weight, (input.shape[0], channels, *full))
    for axis, size, p, extra in zip((2, 3), full, padding, output_padding):
        if p or extra:
            output = _crop(output, axis, p, size - p + extra)
    output = output.astype(dtype)
    if bias is not None:
        output = output + bias.reshape(1, -1, 1, 1).astype(dtype)
    return output.squeeze(0) if unbatched else output


def conv_transpose1d(
    input,
    weight,
    bias=None,
    stride=1,
    padding=0,
    output_padding=0,
    groups=1,
    dilation=1,
):
    """`torch.nn.functional.conv_transpose1d`: conv_transpose2d over a height of 1."""
    output = conv_transpose2d(
        input.expand_dims(-2),
        weight.expand_dims(-2),
        bias,
        (1, _each(stride, 1)[0]),
        (0, _each(padding, 1)[0]),
        (0, _each(output_padding, 1)[0]),
        groups,
        (1, _each(dilation, 1)[0]),
    )
    return output.squeeze(-2)
