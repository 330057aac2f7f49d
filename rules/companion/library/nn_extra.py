"""Alpha dropout, adaptive max pooling with any output size, and the multi-label margin loss
with torch's arguments, from ops with CPU kernels (MindSpore 2.10 has no layer for the first and
the last, and its adaptive max pooling needs sizes that divide evenly)."""

import math

from mindspore import Tensor, nn, ops

from .functional import _in_place
from .losses import _legacy_reduction, _loss_reduced, pairwise_distance

# SELU's -scale * alpha: the value alpha dropout writes for a dropped unit.
_ALPHA_PRIME = -1.7580993408473766


def _alpha_dropout(input, p, training, feature):
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0 or input.size == 0:
        return input
    if p == 1:
        return input * 0
    shape = input.shape
    if feature:
        shape = tuple(shape[:2]) + (1,) * (input.ndim - 2)
    keep = (ops.rand(shape) >= p).astype(input.dtype)
    scale = ((1 - p) * (1 + p * _ALPHA_PRIME**2)) ** -0.5
    shift = -scale * _ALPHA_PRIME * p
    return (input * keep + _ALPHA_PRIME * (1 - keep)) * scale + shift


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """`torch.nn.functional.alpha_dropout`: in training, each unit is set with probability `p` to
    SELU's negative saturation value, and the result is scaled and shifted to keep the mean and
    variance; the identity otherwise."""
    return _in_place(lambda x: _alpha_dropout(x, p, training, False), input, inplace)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """`torch.nn.functional.feature_alpha_dropout`: alpha dropout of whole (N, C) channels."""
    return _in_place(lambda x: _alpha_dropout(x, p, training, True), input, inplace)


class AlphaDropout(nn.Cell):
    """`torch.nn.AlphaDropout`: `alpha_dropout` in training mode (after `set_train()`)."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(
                f"dropout probability has to be between 0 and 1, but got {p}"
            )
        self.p, self.inplace = p, inplace

    def construct(self, input):
        return alpha_dropout(input, self.p, self.training, self.inplace)


class FeatureAlphaDropout(AlphaDropout):
    """`torch.nn.FeatureAlphaDropout`: `feature_alpha_dropout` in training mode."""

    def construct(self, input):
        return feature_alpha_dropout(input, self.p, self.training, self.inplace)


def _adaptive_max_pool(input, output_size, return_indices, rank):
    """torch's adaptive windows: output cell i of a length-L axis covers
    [floor(i * L / n), ceil((i + 1) * L / n)); indices count in the flattened spatial plane."""
    spatial = tuple(input.shape[-rank:])
    if not isinstance(output_size, (tuple, list)):
        output_size = (output_size,) * rank
    sizes = tuple(s if n is None else n for n, s in zip(output_size, spatial))
    lead = tuple(input.shape[:-rank])
    flat = input.reshape(lead + (-1,))
    strides = [math.prod(spatial[axis + 1 :]) for axis in range(rank)]
    bounds = [
        [((i * length) // n, -((-(i + 1) * length) // n)) for i in range(n)]
        for length, n in zip(spatial, sizes)
    ]
    values, indices = [], []
    for cell in _grid(sizes):
        ranges = [bounds[axis][i] for axis, i in enumerate(cell)]
        positions = [
            sum(index * stride for index, stride in zip(point, strides))
            for point in _grid([stop - start for start, stop in ranges], ranges)
        ]
        window = flat[..., positions]
        where = ops.argmax(window, -1)
        values.append(ops.amax(window, -1))
        indices.append(ops.gather(Tensor(positions), where, 0))
    output = ops.stack(values, -1).reshape(lead + sizes)
    if not return_indices:
        return output
    return output, ops.stack(indices, -1).reshape(lead + sizes).astype("int64")


def _grid(sizes, ranges=None):
    """Every point of a box, last axis fastest; with `ranges`, offset by each range's start."""
    points = [()]
    for axis, size in enumerate(sizes):
        start = ranges[axis][0] if ranges else 0
        points = [point + (start + i,) for point in points for i in range(size)]
    return points


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """`torch.nn.functional.adaptive_max_pool1d` for any output size."""
    return _adaptive_max_pool(input, output_size, return_indices, 1)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """`torch.nn.functional.adaptive_max_pool2d` for any output size."""
    return _adaptive_max_pool(input, output_size, return_indices, 2)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """`torch.nn.functional.adaptive_max_pool3d` for any output size."""
    return _adaptive_max_pool(input, output_size, return_indices, 3)


class _AdaptiveMaxPool(nn.Cell):
    rank = 1

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def construct(self, input):
        return _adaptive_max_pool(
            input, self.output_size, self.return_indices, self.rank
        )


class AdaptiveMaxPool1d(_AdaptiveMaxPool):
    """`torch.nn.AdaptiveMaxPool1d`: `adaptive_max_pool1d` with torch's arguments."""

    rank = 1


class AdaptiveMaxPool2d(_AdaptiveMaxPool):
    """`torch.nn.AdaptiveMaxPool2d`: `adaptive_max_pool2d` with torch's arguments."""

    rank = 2


class AdaptiveMaxPool3d(_AdaptiveMaxPool):
    """`torch.nn.AdaptiveMaxPool3d`: `adaptive_max_pool3d` with torch's arguments."""

    rank = 3


def multilabel_margin_loss(
    input, target, size_average=None, reduce=None, reduction="mean"
):
    """`torch.nn.functional.multilabel_margin_loss`: for each sample, the target classes are
    the entries of `target` before the first -1; each target class j and each class i that is not
    a target add max(0, 1 - (x[j] - x[i])), and the sum is divided by the number of classes."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    single = input.ndim <= 1
    x = input.reshape((1, -1)) if single else input
    labels = target.reshape((1, -1)) if single else target
    classes = x.shape[-1]
    valid = ops.cumprod((labels != -1).astype("int32"), 1).astype(x.dtype)
    clipped = ops.clip(labels, 0, classes - 1).astype("int32")
    chosen = ops.one_hot(
        clipped, classes, ops.ones((), x.dtype), ops.zeros((), x.dtype)
    )
    is_target = ((chosen * valid[..., None]).sum(1) > 0).astype(x.dtype)
    target_values = ops.gather_elements(x, 1, clipped)
    margins = ops.relu(1 - target_values[:, :, None] + x[:, None, :])
    mask = valid[:, :, None] * (1 - is_target)[:, None, :]
    loss = (margins * mask).sum((1, 2)) / classes
    if single:
        loss = loss.reshape(())
    return _loss_reduced(loss, reduction)


class MultiLabelMarginLoss(nn.Cell):
    """`torch.nn.MultiLabelMarginLoss`: `multilabel_margin_loss` with torch's arguments."""

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.reduction = _legacy_reduction(size_average, reduce, reduction)

    def construct(self, input, target):
        return multilabel_margin_loss(input, target, reduction=self.reduction)


def triplet_margin_with_distance_loss(
    anchor,
    positive,
    negative,
    *,
    distance_function=None,
    margin=1.0,
    swap=False,
    reduction="mean",
):
    """`torch.nn.functional.triplet_margin_with_distance_loss`: max(d(a, p) - d(a, n) + margin,
    0) for any distance function (the pairwise Euclidean distance by default), with d(a, n)
    replaced by min(d(a, n), d(p, n)) when `swap`."""
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    distance = pairwise_distance if distance_function is None else distance_function
    positive_distance = distance(anchor, positive)
    negative_distance = distance(anchor, negative)
    if swap:
        negative_distance = ops.minimum(negative_distance, distance(positive, negative))
    loss = ops.clamp(margin + positive_distance - negative_distance, min=0.0)
    return _loss_reduced(loss, reduction)


class TripletMarginWithDistanceLoss(nn.Cell):
    """`torch.nn.TripletMarginWithDistanceLoss` with torch's constructor arguments."""

    def __init__(
        self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"
    ):
        super().__init__()
        if margin <= 0:
            raise ValueError(f"margin must be greater than 0, got {margin}")
        self.distance_function = distance_function
        self.margin, self.swap, self.reduction = margin, swap, reduction

    def construct(self, anchor, positive, negative):
        return triplet_margin_with_distance_loss(
            anchor,
            positive,
            negative,
            distance_function=self.distance_function,
            margin=self.margin,
            swap=self.swap,
            reduction=self.reduction,
        )


def multi_margin_loss(
    input,
    target,
    p=1,
    margin=1.0,
    weight=None,
    size_average=None,
    reduce=None,
    reduction="mean",
):
    """`torch.nn.functional.multi_margin_loss`: for each sample, every class i other than the
    target y adds max(0, margin - x[y] + x[i])^p (times weight[y]); the sum is divided by the
    number of classes."""
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    reduction = _legacy_reduction(size_average, reduce, reduction)
    single = input.ndim <= 1
    x = input.reshape((1, -1)) if single else input
    labels = target.reshape((-1,)).astype("int32")
    classes = x.shape[-1]
    chosen = ops.gather_elements(x, 1, labels.expand_dims(1))
    margins = ops.relu(margin - chosen + x) ** p
    others = 1 - ops.one_hot(
        labels, classes, ops.ones((), x.dtype), ops.zeros((), x.dtype)
    )
    loss = (margins * others).sum(1) / classes
    if weight is not None:
        loss = loss * ops.gather(weight, labels, 0)
    if single:
        loss = loss.reshape(())
    return _loss_reduced(loss, reduction)


class MultiMarginLoss(nn.Cell):
    """`torch.nn.MultiMarginLoss`: `multi_margin_loss` with torch's constructor arguments."""

    def __init__(
        self,
        p=1,
        margin=1.0,
        weight=None,
        size_average=None,
        reduce=None,
        reduction="mean",
    ):
        super().__init__()
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        self.p, self.margin, self.weight = p, margin, weight
        self.reduction = _legacy_reduction(size_average, reduce, reduction)

    def construct(self, input, target):
        return multi_margin_loss(
            input, target, self.p, self.margin, self.weight, reduction=self.reduction
        )
