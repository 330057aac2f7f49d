"""torch.nn.functional on the shared engine, with torch's grad_fn names."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import core as C
from .._ops import log_softmax as _log_softmax
from .._ops import softmax as _softmax
from .._tensor import Tensor, _raw, named, wrap


def _reduction(size_average: Any, reduce: Any, reduction: str) -> str:
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        return "none"
    return "mean" if size_average else "sum"


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    return C.linear(input, weight, bias)


def bilinear(*args: Any, **kwargs: Any) -> Tensor:
    raise NotImplementedError("shims: torch.nn.functional.bilinear is not implemented")


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    out = C.relu(input)
    return _maybe_inplace(input, out, inplace)


def _maybe_inplace(input: Tensor, out: Tensor, inplace: bool) -> Tensor:
    if not inplace:
        return out
    if C.is_grad_enabled() and input.requires_grad and input._ctx is None:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )
    input._data = out._data
    input._ctx = out._ctx
    input.requires_grad = out.requires_grad
    return input


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    return _maybe_inplace(
        input, named(C.clamp(input, 0.0, 6.0), "HardtanhBackward0"), inplace
    )


def leaky_relu(
    input: Tensor, negative_slope: float = 0.01, inplace: bool = False
) -> Tensor:
    out = C.where(_raw(input) > 0, input, C.mul(input, negative_slope))
    return _maybe_inplace(input, named(out, "LeakyReluBackward0"), inplace)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    neg = C.mul(C.sub(C.exp(C.minimum(input, 0.0)), 1.0), alpha)
    return _maybe_inplace(
        input, named(C.where(_raw(input) > 0, input, neg), "EluBackward0"), inplace
    )


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    return named(C.gelu(input, approximate), "GeluBackward0")


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    return _maybe_inplace(
        input, named(C.mul(input, C.sigmoid(input)), "SiluBackward0"), inplace
    )


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    return named(C.mul(input, C.tanh(softplus(input))), "MishBackward0")


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    scaled = C.mul(input, beta)
    soft = C.div(C.add(C.log1p(C.exp(C.neg(C.abs(scaled)))), C.relu(scaled)), beta)
    return named(C.where(_raw(scaled) > threshold, input, soft), "SoftplusBackward0")


def hardtanh(
    input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
) -> Tensor:
    return _maybe_inplace(
        input, named(C.clamp(input, min_val, max_val), "HardtanhBackward0"), inplace
    )


def sigmoid(input: Tensor) -> Tensor:
    return C.sigmoid(input)


def tanh(input: Tensor) -> Tensor:
    return C.tanh(input)


def softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    return _softmax(input, _default_dim(input, dim), dtype)


def log_softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
) -> Tensor:
    return _log_softmax(input, _default_dim(input, dim), dtype)


def _default_dim(input: Tensor, dim: int | None) -> int:
    if dim is not None:
        return dim
    return 0 if input.ndim in (0, 1, 3) else 1


def dropout(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    return _maybe_inplace(
        input, named(C.dropout(input, p, True), "MulBackward0"), inplace
    )


def conv2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    unbatched = input.ndim == 3
    x = C.unsqueeze(input, 0) if unbatched else input
    out = C.conv2d(x, weight, bias, stride, padding, dilation, groups)
    if unbatched:
        out = C.squeeze(out, 0)
    return named(out, "ConvolutionBackward0")


def conv1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    unbatched = input.ndim == 2
    x = C.unsqueeze(input, 0) if unbatched else input
    pad = (
        padding
        if isinstance(padding, str)
        else (0, padding[0] if isinstance(padding, (tuple, list)) else padding)
    )
    first = lambda v: v[0] if isinstance(v, (tuple, list)) else v
    out = C.conv2d(
        C.unsqueeze(x, 2),
        C.unsqueeze(weight, 2),
        bias,
        (1, first(stride)),
        pad,
        (1, first(dilation)),
        groups,
    )
    out = C.squeeze(out, 2)
    if unbatched:
        out = C.squeeze(out, 0)
    return named(out, "ConvolutionBackward0")


def max_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Tensor:
    if return_indices:
        raise NotImplementedError(
            "shims: max_pool2d(return_indices=True) is not implemented"
        )
    unbatched = input.ndim == 3
    x = C.unsqueeze(input, 0) if unbatched else input
    out = C.max_pool2d(x, kernel_size, stride, padding, dilation, ceil_mode)
    if unbatched:
        out = C.squeeze(out, 0)
    return named(out, "MaxPool2DWithIndicesBackward0")


def avg_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: Any = None,
) -> Tensor:
    unbatched = input.ndim == 3
    x = C.unsqueeze(input, 0) if unbatched else input
    out = C.avg_pool2d(
        x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
    )
    if unbatched:
        out = C.squeeze(out, 0)
    return named(out, "AvgPool2DBackward0")


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    h, w = input.shape[-2:]
    oh, ow = (output_size, output_size) if isinstance(output_size, int) else output_size
    oh = h if oh is None else oh
    ow = w if ow is None else ow
    if (oh, ow) == (1, 1):
        return named(C.mean(input, (-2, -1), True), "MeanBackward1")
    if h % oh or w % ow:
        raise NotImplementedError(
            "shims: adaptive_avg_pool2d with non-divisible sizes is not implemented"
        )
    return named(avg_pool2d(input, (h // oh, w // ow)), "AdaptiveAvgPool2DBackward0")


def adaptive_max_pool2d(
    input: Tensor, output_size: Any, return_indices: bool = False
) -> Tensor:
    h, w = input.shape[-2:]
    oh, ow = (output_size, output_size) if isinstance(output_size, int) else output_size
    if h % oh or w % ow or return_indices:
        raise NotImplementedError(
            "shims: adaptive_max_pool2d with non-divisible sizes is not implemented"
        )
    return named(max_pool2d(input, (h // oh, w // ow)), "AdaptiveMaxPool2DBackward0")


def batch_norm(
    input: Tensor,
    running_mean: Any,
    running_var: Any,
    weight: Any = None,
    bias: Any = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-05,
) -> Tensor:
    out = C.batch_norm(
        input, running_mean, running_var, weight, bias, training, momentum, eps
    )
    return named(out, "NativeBatchNormBackward0")


def layer_norm(
    input: Tensor,
    normalized_shape: Any,
    weight: Any = None,
    bias: Any = None,
    eps: float = 1e-05,
) -> Tensor:
    return named(
        C.layer_norm(input, normalized_shape, weight, bias, eps),
        "NativeLayerNormBackward0",
    )


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Any = None,
    bias: Any = None,
    eps: float = 1e-05,
) -> Tensor:
    n, c = input.shape[:2]
    x = C.reshape(input, (n, num_groups, -1))
    mean = C.mean(x, 2, True)
    centred = C.sub(x, mean)
    var = C.mean(C.mul(centred, centred), 2, True)
    out = C.reshape(C.mul(centred, C.div(1.0, C.sqrt(C.add(var, eps)))), input.shape)
    shape = (1, c) + (1,) * (input.ndim - 2)
    if weight is not None:
        out = C.mul(out, C.reshape(weight, shape))
    if bias is not None:
        out = C.add(out, C.reshape(bias, shape))
    return named(out, "NativeGroupNormBackward0")


def embedding(
    input: Any,
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: Any = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError(
            "shims: embedding(max_norm/scale_grad_by_freq/sparse) is not implemented"
        )
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    return named(C.embedding(weight, _raw(input), padding_idx), "EmbeddingBackward0")


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    ids = _raw(tensor)
    n = int(ids.max()) + 1 if num_classes < 0 else num_classes
    return wrap(np.eye(n, dtype=np.int64)[ids])


def pad(
    input: Tensor, pad: Any, mode: str = "constant", value: float | None = None
) -> Tensor:
    if mode != "constant":
        raise NotImplementedError(
            f"shims: torch.nn.functional.pad(mode={mode!r}) is not implemented"
        )
    pads = [(0, 0)] * input.ndim
    for i in range(len(pad) // 2):
        pads[input.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    return named(
        C.pad(input, pads, 0.0 if value is None else value), "ConstantPadNdBackward0"
    )


def normalize(
    input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12
) -> Tensor:
    norm = C.pow(C.sum(C.pow(C.abs(input), p), dim, True), 1.0 / p)
    return named(C.div(input, C.maximum(norm, eps)), "DivBackward0")


def cosine_similarity(
    x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8
) -> Tensor:
    dot = C.sum(C.mul(x1, x2), dim)
    n1 = C.sqrt(C.sum(C.mul(x1, x1), dim))
    n2 = C.sqrt(C.sum(C.mul(x2, x2), dim))
    return named(
        C.div(dot, C.mul(C.maximum(n1, eps), C.maximum(n2, eps))), "DivBackward0"
    )


# ------------------------------------------------------------------ losses
def mse_loss(
    input: Tensor,
    target: Any,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    return named(
        C.mse_loss(input, target, _reduction(size_average, reduce, reduction)),
        "MseLossBackward0",
    )


def l1_loss(
    input: Tensor,
    target: Any,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    return C.l1_loss(input, target, _reduction(size_average, reduce, reduction))


def smooth_l1_loss(
    input: Tensor,
    target: Any,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:
    out = C.smooth_l1_loss(
        input, target, _reduction(size_average, reduce, reduction), beta
    )
    return named(out, "SmoothL1LossBackward0")


def huber_loss(
    input: Tensor, target: Any, reduction: str = "mean", delta: float = 1.0
) -> Tensor:
    out = C.mul(C.smooth_l1_loss(input, target, reduction, delta), delta)
    return named(out, "HuberLossBackward0")


def nll_loss(
    input: Tensor,
    target: Any,
    weight: Any = None,
    size_average: Any = None,
    ignore_index: int = -100,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    red = _reduction(size_average, reduce, reduction)
    return named(
        C.nll_loss(input, _raw(target), _raw(weight), ignore_index, red),
        "NllLossBackward0",
    )


def cross_entropy(
    input: Tensor,
    target: Any,
    weight: Any = None,
    size_average: Any = None,
    ignore_index: int = -100,
    reduce: Any = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    t = target._data if isinstance(target, Tensor) else target
    if (
        weight is None
        and size_average is None
        and reduce is None
        and reduction == "mean"
        and label_smoothing <= 0.0
        and ignore_index < 0
        and t.__class__ is np.ndarray
        and t.ndim == 1
        and t.dtype.kind in "iu"
        and isinstance(input, C.Tensor)
        and input._data.ndim == 2
        and t.size
        and np.minimum.reduce(t) >= 0
    ):
        # The common case (class indices, none ignored) goes straight to the fused kernel.
        return named(C.softmax_cross_entropy(input, t), "NllLossBackward0")
    red = _reduction(size_average, reduce, reduction)
    t = _raw(target)
    out = C.cross_entropy(input, t, red, ignore_index, label_smoothing, _raw(weight))
    if getattr(t, "dtype", None) is not None and t.dtype.kind == "f":
        return out
    return named(out, "NllLossBackward0" if label_smoothing <= 0 else "AddBackward0")


def binary_cross_entropy(
    input: Tensor,
    target: Any,
    weight: Any = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    red = _reduction(size_average, reduce, reduction)
    if tuple(np.shape(_raw(target))) != tuple(input.shape):
        raise ValueError(
            f"Using a target size ({tuple(np.shape(_raw(target)))}) that is different to the input size "
            f"({tuple(input.shape)}) is deprecated. Please ensure they have the same size."
        )
    return named(
        C.binary_cross_entropy(input, target, weight, red),
        "BinaryCrossEntropyBackward0",
    )


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Any,
    weight: Any = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    pos_weight: Any = None,
) -> Tensor:
    red = _reduction(size_average, reduce, reduction)
    out = C.binary_cross_entropy_with_logits(input, target, weight, red, pos_weight)
    return named(out, "BinaryCrossEntropyWithLogitsBackward0")


def kl_div(
    input: Tensor,
    target: Any,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:
    red = _reduction(size_average, reduce, reduction)
    if log_target:
        loss = C.mul(C.exp(target), C.sub(target, input))
    else:
        t = _raw(target)
        logt = np.where(t > 0, np.log(np.where(t > 0, t, 1)), 0).astype(t.dtype)
        loss = C.mul(target, C.sub(logt, input))
    if red == "batchmean":
        return C.div(C.sum(loss), float(input.shape[0]))
    return {"mean": C.mean, "sum": C.sum}.get(red, lambda v: v)(loss)


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    raise NotImplementedError(f"shims: torch.nn.functional.{name} is not implemented")
