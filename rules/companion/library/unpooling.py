"""Max unpooling, instance normalisation, Poisson NLL and embedding lookup with torch's
arguments, from ops with CPU kernels (MindSpore 2.10 has none for its own forms of these)."""

import math

import numpy as np
from mindspore import Parameter, Tensor, nn, ops
from mindspore import dtype as mstype

from .losses import _legacy_reduction, _loss_reduced


def max_pool1d(
    input,
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode=False,
    return_indices=False,
):
    """`torch.nn.functional.max_pool1d`: `ops.max_pool2d` over a height of 1 (its indices
    count along the length, as torch's do)."""

    def first(value):
        return value[0] if isinstance(value, (tuple, list)) else value

    kernel = first(kernel_size)
    step = kernel if stride is None or stride == [] else first(stride)
    result = ops.max_pool2d(
        input.expand_dims(-2),
        (1, kernel),
        (1, step),
        (0, first(padding)),
        (1, first(dilation)),
        return_indices=return_indices,
        ceil_mode=ceil_mode,
    )
    if return_indices:
        return result[0].squeeze(-2), result[1].squeeze(-2)
    return result.squeeze(-2)


def _unpool_size(input, kernel_size, stride, padding, output_size, rank):
    kernel = kernel_size if isinstance(kernel_size, (tuple, list)) else (kernel_size,) * rank
    stride = kernel if stride is None else stride
    stride = stride if isinstance(stride, (tuple, list)) else (stride,) * rank
    padding = padding if isinstance(padding, (tuple, list)) else (padding,) * rank
    if output_size is not None:
        return tuple(int(s) for s in tuple(output_size)[-rank:])
    spatial = input.shape[-rank:]
    return tuple(
        (size - 1) * s - 2 * p + k for size, s, p, k in zip(spatial, stride, padding, kernel)
    )


def _max_unpool(input, indices, kernel_size, stride, padding, output_size, rank):
    """Scatter each value to the flat position its index names in its (N, C) plane."""
    size = _unpool_size(input, kernel_size, stride, padding, output_size, rank)
    lead = tuple(input.shape[:-rank])
    planes = int(math.prod(lead))
    values = input.reshape((planes, -1))
    positions = indices.reshape((planes, -1))
    output = ops.zeros((planes, int(math.prod(size))), input.dtype)
    output = ops.tensor_scatter_elements(output, positions, values, axis=1)
    return output.reshape(lead + size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """`torch.nn.functional.max_unpool1d`."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """`torch.nn.functional.max_unpool2d`."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """`torch.nn.functional.max_unpool3d`."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 3)


class _MaxUnpool(nn.Cell):
    _rank = 2

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def construct(self, input, indices, output_size=None):
        return _max_unpool(
            input,
            indices,
            self.kernel_size,
            self.stride,
            self.padding,
            output_size,
            self._rank,
        )


class MaxUnpool1d(_MaxUnpool):
    """`torch.nn.MaxUnpool1d`."""

    _rank = 1


class MaxUnpool2d(_MaxUnpool):
    """`torch.nn.MaxUnpool2d`."""

    _rank = 2


class MaxUnpool3d(_MaxUnpool):
    """`torch.nn.MaxUnpool3d`."""

    _rank = 3


def instance_norm(
    input,
    running_mean=None,
    running_var=None,
    weight=None,
    bias=None,
    use_input_stats=True,
    momentum=0.1,
    eps=1e-5,
):
    """`torch.nn.functional.instance_norm`: each (N, C) plane normalised over its spatial
    dimensions; with running statistics given, they are updated from the batch (the unbiased
    variance, averaged over N) or, without `use_input_stats`, used instead."""
    axes = tuple(range(2, input.ndim))
    shape = (1, -1) + (1,) * len(axes)
    if use_input_stats:
        mean = input.mean(axis=axes, keep_dims=True)
        var = ((input - mean) ** 2).mean(axis=axes, keep_dims=True)
    else:
        mean, var = running_mean.reshape(shape), running_var.reshape(shape)
    output = (input - mean) / ops.sqrt(var + eps)
    if weight is not None:
        output = output * weight.reshape(shape)
    if bias is not None:
        output = output + bias.reshape(shape)
    if use_input_stats and (running_mean is not None or running_var is not None):
        # After the output, as torch: the statistics may be the very tensors passed as weight.
        count = int(math.prod(input.shape[2:]))
        batch_mean = mean.reshape(input.shape[:2]).mean(0)
        batch_var = var.reshape(input.shape[:2]).mean(0) * count / max(count - 1, 1)
        updates = []
        if running_mean is not None:
            updates.append((running_mean, batch_mean))
        if running_var is not None:
            updates.append((running_var, batch_var))
        new = [old * (1 - momentum) + batch * momentum for old, batch in updates]
        for (old, _), value in zip(updates, new):
            ops.assign(old, value)
    return output


class _InstanceNorm(nn.Cell):
    """torch's InstanceNorm: a scale and shift with `affine=True`, running statistics (used in
    evaluation) with `track_running_stats=True`. The Parameters have MindSpore's norm names
    (`gamma`, `beta`, `moving_mean`, `moving_variance`), as `torch2ms weights` writes them;
    torch's names read them."""

    _ranks = (3, 4)

    def __init__(
        self,
        num_features,
        eps=1e-5,
        momentum=0.1,
        affine=False,
        track_running_stats=False,
        device=None,
        dtype=None,
    ):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.gamma = Parameter(ops.ones(num_features)) if affine else None
        self.beta = Parameter(ops.zeros(num_features)) if affine else None
        if track_running_stats:
            self.moving_mean = Parameter(ops.zeros(num_features), requires_grad=False)
            self.moving_variance = Parameter(ops.ones(num_features), requires_grad=False)
        else:
            self.moving_mean = self.moving_variance = None

    @property
    def weight(self):
        return self.gamma

    @property
    def bias(self):
        return self.beta

    @property
    def running_mean(self):
        return self.moving_mean

    @property
    def running_var(self):
        return self.moving_variance

    def construct(self, input):
        unbatched = input.ndim == self._ranks[0]
        if unbatched:
            input = input.expand_dims(0)
        output = instance_norm(
            input,
            self.moving_mean,
            self.moving_variance,
            self.gamma,
            self.beta,
            self.training or not self.track_running_stats,
            self.momentum if self.momentum is not None else 0.1,
            self.eps,
        )
        return output.squeeze(0) if unbatched else output


class InstanceNorm1d(_InstanceNorm):
    """`torch.nn.InstanceNorm1d`: (N, C, L) or (C, L)."""

    _ranks = (2, 3)


class InstanceNorm2d(_InstanceNorm):
    """`torch.nn.InstanceNorm2d`: (N, C, H, W) or (C, H, W)."""

    _ranks = (3, 4)


class InstanceNorm3d(_InstanceNorm):
    """`torch.nn.InstanceNorm3d`: (N, C, D, H, W) or (C, D, H, W)."""

    _ranks = (4, 5)


def poisson_nll_loss(
    input,
    target,
    log_input=True,
    full=False,
    size_average=None,
    eps=1e-8,
    reduce=None,
    reduction="mean",
):
    """`torch.nn.functional.poisson_nll_loss`: exp(input) - target * input (`log_input`), or
    input - target * log(input + eps); `full` adds Stirling's term where target > 1."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if log_input:
        loss = ops.exp(input) - target * input
    else:
        loss = input - target * ops.log(input + eps)
    if full:
        safe = ops.where(target > 1, target, ops.ones_like(target))
        stirling = safe * ops.log(safe) - safe + 0.5 * ops.log(2 * math.pi * safe)
        loss = loss + ops.where(target > 1, stirling, ops.zeros_like(target))
    return _loss_reduced(loss, reduction)


class PoissonNLLLoss(nn.Cell):
    """`torch.nn.PoissonNLLLoss` with torch's constructor arguments."""

    def __init__(
        self,
        log_input=True,
        full=False,
        size_average=None,
        eps=1e-8,
        reduce=None,
        reduction="mean",
    ):
        super().__init__()
        self.log_input, self.full, self.eps = log_input, full, eps
        self.reduction = _legacy_reduction(size_average, reduce, reduction)

    def construct(self, log_input, target):
        return poisson_nll_loss(
            log_input,
            target,
            self.log_input,
            self.full,
            eps=self.eps,
            reduction=self.reduction,
        )


def embedding(
    input,
    weight,
    padding_idx=None,
    max_norm=None,
    norm_type=2.0,
    scale_grad_by_freq=False,
    sparse=False,
):
    """`torch.nn.functional.embedding`: the rows of `weight` that `input` names (the row at
    `padding_idx` gets no gradient; with `scale_grad_by_freq` each row's gradient is divided by
    how often `input` names it)."""
    if not isinstance(input, Tensor):
        input = Tensor(input)
    if max_norm is not None:
        _renorm_rows(weight, input, max_norm, norm_type)
    if padding_idx is not None:
        if padding_idx < 0:
            padding_idx += weight.shape[0]
        rows = ops.arange(weight.shape[0]).reshape((-1, 1))
        kept = ops.stop_gradient(weight)
        weight = ops.where(rows == padding_idx, kept, weight)
    if scale_grad_by_freq:
        return _frequency_scaled(weight, input)
    return ops.gather(weight, input, 0)


def _frequency_scaled(table, ids):
    """`gather(table, ids)` whose gradient reaches each row divided by the number of times `ids`
    names it (torch's `scale_grad_by_freq`): the value is the gathered rows exactly, and the part
    that carries the gradient is scaled per position."""
    flat = ids.reshape(-1).astype(mstype.int32)
    ones = ops.ones(flat.shape, mstype.float32)
    counts = ops.unsorted_segment_sum(ones, flat, table.shape[0])
    scale = (1.0 / ops.gather(counts, flat, 0)).reshape(ids.shape + (1,))
    rows = ops.gather(table, ids, 0)
    kept = ops.stop_gradient(rows)
    return kept + (rows - kept) * scale.astype(rows.dtype)


def _renorm_rows(weight, input, max_norm, norm_type):
    """torch's `embedding_renorm_`: the rows `input` names whose `norm_type`-norm exceeds
    `max_norm` are scaled down to it, in place in `weight`."""
    rows = np.unique(input.asnumpy().reshape(-1))
    values = weight.asnumpy()
    selected = values[rows]
    norms = np.sum(np.abs(selected) ** norm_type, axis=1) ** (1.0 / norm_type)
    scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
    values[rows] = selected * scale[:, None].astype(values.dtype)
    ops.assign(weight, Tensor(values))
