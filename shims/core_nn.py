"""Neural-network functions composed from primitives (so their gradients of any order come for free)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import core_ops as O
from . import core_ops_nn as N
from . import core_ops_shape as S
from .core_engine import Tensor, raw, wrap
from .core_random import rng_bernoulli

SQRT1_2 = 1.0 / math.sqrt(2.0)


def gelu(x: Tensor, approximate: str = "none") -> Tensor:
    if approximate == "tanh":
        inner = O.mul(
            O.add(x, O.mul(O.mul(O.mul(x, x), x), 0.044715)), math.sqrt(2.0 / math.pi)
        )
        return O.mul(O.mul(x, 0.5), O.add(O.tanh(inner), 1.0))
    return O.mul(O.mul(x, 0.5), O.add(O.erf(O.mul(x, SQRT1_2)), 1.0))


def _pair(v: Any) -> tuple:
    if isinstance(v, (tuple, list)):
        return tuple(int(i) for i in v) if len(v) == 2 else (int(v[0]), int(v[0]))
    return (int(v), int(v))


def _conv_pads(padding: Any, kernel: tuple, dilation: tuple) -> tuple:
    if padding == "valid":
        return (0, 0, 0, 0)
    if padding == "same":
        pads = []
        for k, d in zip(kernel, dilation):
            total = d * (k - 1)
            pads += [total // 2, total - total // 2]
        return tuple(pads)
    ph, pw = _pair(padding)
    return (ph, ph, pw, pw)


def conv2d(
    x: Tensor,
    w: Tensor,
    b: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """NCHW convolution (cross-correlation) by im2col and one batched matmul."""
    n, _, h, wd = x.shape
    o, cg, kh, kw = w.shape
    stride, dilation = _pair(stride), _pair(dilation)
    pads = _conv_pads(padding, (kh, kw), dilation)
    cols = N.im2col(x, (kh, kw), stride, pads, dilation)
    oh = (h + pads[0] + pads[1] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + pads[2] + pads[3] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    if groups == 1:
        out = O.matmul(S.reshape(w, (o, cg * kh * kw)), cols)
    else:
        cols = S.reshape(cols, (n, groups, cg * kh * kw, oh * ow))
        out = O.matmul(S.reshape(w, (groups, o // groups, cg * kh * kw)), cols)
    out = S.reshape(out, (n, o, oh, ow))
    if b is not None:
        out = O.add(out, S.reshape(b, (1, o, 1, 1)))
    return out


def _pool_geometry(
    x: Tensor, kernel: Any, stride: Any, padding: Any, dilation: Any, ceil_mode: bool
):
    kernel = _pair(kernel)
    stride = kernel if stride is None or stride == [] else _pair(stride)
    ph, pw = _pair(padding)
    dilation = _pair(dilation)
    h, w = x.shape[2], x.shape[3]
    sizes, extra = [], []
    for size, k, s, p, d in (
        (h, kernel[0], stride[0], ph, dilation[0]),
        (w, kernel[1], stride[1], pw, dilation[1]),
    ):
        span = size + 2 * p - d * (k - 1) - 1
        out = (-(-span // s) if ceil_mode else span // s) + 1
        if ceil_mode and (out - 1) * s >= size + p:
            out -= 1
        sizes.append(out)
        extra.append(max(0, (out - 1) * s + d * (k - 1) + 1 - (size + 2 * p)))
    pads = (ph, ph + extra[0], pw, pw + extra[1])
    return kernel, stride, pads, dilation, sizes


def max_pool2d(
    x: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
) -> Tensor:
    n, c, h, w = x.shape
    kernel, stride, pads, dilation, (oh, ow) = _pool_geometry(
        x, kernel_size, stride, padding, dilation, ceil_mode
    )
    cols = N.im2col(
        S.reshape(x, (n * c, 1, h, w)), kernel, stride, pads, dilation, value=-np.inf
    )
    # The first maximum of each window receives the gradient, as in torch.
    index = np.argmax(raw(cols), axis=1)[:, None, :]
    return S.reshape(S.gather(cols, 1, index), (n, c, oh, ow))


def avg_pool2d(
    x: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    n, c, h, w = x.shape
    kernel, stride, pads, dilation, (oh, ow) = _pool_geometry(
        x, kernel_size, stride, padding, 1, ceil_mode
    )
    cols = N.im2col(S.reshape(x, (n * c, 1, h, w)), kernel, stride, pads, dilation)
    total = O.sum(cols, 1)
    if divisor_override:
        divisor: Any = float(divisor_override)
    elif count_include_pad:
        # Windows are clipped to the symmetrically padded input (ceil_mode overhang does not count).
        ones = np.zeros((1, 1, h + 2 * pads[0], w + 2 * pads[2]), raw(x).dtype)
        ones[:, :, : h + 2 * pads[0], : w + 2 * pads[2]] = 1
        grown = (0, pads[1] - pads[0], 0, pads[3] - pads[2])
        divisor = N._im2col_fwd(ones, kernel, stride, grown, dilation).sum(1)
    else:
        ones = np.ones((1, 1, h, w), raw(x).dtype)
        divisor = N._im2col_fwd(ones, kernel, stride, pads, dilation).sum(1)
    return S.reshape(O.div(total, divisor), (n, c, oh, ow))


def batch_stats(x: Tensor) -> tuple[np.ndarray, np.ndarray, int]:
    """Per-channel mean and biased variance of the raw data, and the count per channel."""
    d = raw(x)
    axes = (0,) + tuple(range(2, d.ndim))
    count = d.size // d.shape[1]
    return d.mean(axis=axes), d.var(axis=axes), count


def batch_norm(
    x: Tensor,
    running_mean: Any,
    running_var: Any,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise over every axis but 1. In training with running arrays given, they are updated in
    place as ``new = (1 - momentum) * old + momentum * batch`` (variance unbiased); MindSpore's
    momentum is ``1 - momentum`` in this formula. Pass ``momentum=None`` to skip the update."""
    nd = x.ndim
    axes = (0,) + tuple(range(2, nd))
    shape = (1, x.shape[1]) + (1,) * (nd - 2)
    if training or running_mean is None:
        mean = O.mean(x, axes, True)
        centred = O.sub(x, mean)
        var = O.mean(O.mul(centred, centred), axes, True)
        if training and running_mean is not None and momentum is not None:
            count = raw(x).size // x.shape[1]
            rm, rv = raw(running_mean), raw(running_var)
            batch_mean = raw(mean).reshape(-1)
            batch_var = raw(var).reshape(-1) * (count / max(count - 1, 1))
            rm *= 1 - momentum
            rm += momentum * batch_mean.astype(rm.dtype)
            rv *= 1 - momentum
            rv += momentum * batch_var.astype(rv.dtype)
    else:
        mean = np.asarray(raw(running_mean)).reshape(shape)
        var = np.asarray(raw(running_var)).reshape(shape)
        centred = O.sub(x, mean.astype(raw(x).dtype))
        var = var.astype(raw(x).dtype)
    inv = (
        O.div(1.0, O.sqrt(O.add(var, eps)))
        if isinstance(var, Tensor)
        else (1.0 / np.sqrt(var + eps)).astype(var.dtype)
    )
    out = O.mul(centred, inv)
    if weight is not None:
        out = O.mul(out, S.reshape(weight, shape))
    if bias is not None:
        out = O.add(out, S.reshape(bias, shape))
    return out


def layer_norm(
    x: Tensor,
    normalized_shape: Any,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    if isinstance(normalized_shape, (int, np.integer)):
        normalized_shape = (int(normalized_shape),)
    axes = tuple(range(x.ndim - len(normalized_shape), x.ndim))
    mean = O.mean(x, axes, True)
    centred = O.sub(x, mean)
    var = O.mean(O.mul(centred, centred), axes, True)
    out = O.mul(centred, O.div(1.0, O.sqrt(O.add(var, eps))))
    if weight is not None:
        out = O.mul(out, weight)
    if bias is not None:
        out = O.add(out, bias)
    return out


def dropout(x: Tensor, p: float = 0.5, training: bool = True) -> Tensor:
    if not training or p == 0.0:
        return x
    if p >= 1.0:
        return O.mul(x, np.zeros((), raw(x).dtype))
    keep = rng_bernoulli(x.shape, 1.0 - p)
    return O.mul(
        x, keep.astype(raw(x).dtype) * np.asarray(1.0 / (1.0 - p), raw(x).dtype)
    )


def embedding(weight: Tensor, ids: Any, padding_idx: int | None = None) -> Tensor:
    ids = np.asarray(raw(ids))
    out = S.getitem(weight, ids)
    if padding_idx is not None and isinstance(out, Tensor) and out.requires_grad:
        keep = (ids != padding_idx)[..., None]
        frozen = wrap(type(out), raw(out))
        out = O.add(O.mul(out, keep), O.mul(frozen, ~keep))
    return out


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return O.mean(loss)
    if reduction == "sum":
        return O.sum(loss)
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def mse_loss(x: Tensor, y: Any, reduction: str = "mean") -> Tensor:
    d = O.sub(x, y)
    return _reduce(O.mul(d, d), reduction)


def l1_loss(x: Tensor, y: Any, reduction: str = "mean") -> Tensor:
    return _reduce(O.abs(O.sub(x, y)), reduction)


def smooth_l1_loss(
    x: Tensor, y: Any, reduction: str = "mean", beta: float = 1.0
) -> Tensor:
    d = O.sub(x, y)
    ad = O.abs(d)
    if beta == 0.0:
        return _reduce(ad, reduction)
    small = raw(ad) < beta
    quad = O.div(O.mul(O.mul(d, d), 0.5), beta)
    lin = O.sub(ad, 0.5 * beta)
    return _reduce(O.where(small, quad, lin), reduction)


def _flatten_classes(
    logp: Tensor, target: np.ndarray
) -> tuple[Tensor, np.ndarray, tuple]:
    """(N, C, d1, ...) -> (N*d1*..., C) so every loss works on rows."""
    if logp.ndim <= 2:
        return logp, target, target.shape
    c = logp.shape[1]
    perm = (0,) + tuple(range(2, logp.ndim)) + (1,)
    return S.reshape(S.transpose(logp, perm), (-1, c)), target.reshape(-1), target.shape


def nll_loss(
    logp: Tensor,
    target: Any,
    weight: Any = None,
    ignore_index: int = -100,
    reduction: str = "mean",
) -> Tensor:
    target = np.asarray(raw(target))
    unbatched = logp.ndim == 1
    if unbatched:
        logp = S.unsqueeze(logp, 0)
        target = target.reshape(1)
    rows, flat, out_shape = _flatten_classes(logp, target)
    valid = flat != ignore_index
    safe = np.where(valid, flat, 0)
    picked = S.getitem(rows, (np.arange(flat.shape[0]), safe))
    dtype = raw(logp).dtype
    w = (
        valid.astype(dtype)
        if weight is None
        else raw(weight)[safe].astype(dtype) * valid
    )
    plain = weight is None and bool(valid.all())
    if reduction == "none":
        loss = O.neg(picked) if plain else O.neg(O.mul(picked, w))
        return S.reshape(loss, out_shape) if not unbatched else S.reshape(loss, ())
    if reduction == "sum":
        return O.neg(O.sum(picked if plain else O.mul(picked, w)))
    if reduction == "mean":
        if plain:
            return O.neg(O.mean(picked))
        return O.div(O.neg(O.sum(O.mul(picked, w))), w.sum(dtype=dtype))
    raise ValueError(f"{reduction} is not a valid value for reduction")


def cross_entropy(
    logits: Tensor,
    target: Any,
    reduction: str = "mean",
    ignore_index: int = -100,
    label_smoothing: float = 0.0,
    weight: Any = None,
) -> Tensor:
    axis = 0 if logits.ndim == 1 else 1
    t = raw(target)
    if (
        reduction == "mean"
        and weight is None
        and label_smoothing <= 0.0
        and logits.ndim == 2
        and isinstance(t, np.ndarray)
        and t.ndim == 1
        and t.dtype.kind in "iu"
        and (ignore_index < 0 and t.size and np.minimum.reduce(t) >= 0)
    ):
        return N.softmax_cross_entropy(logits, t)
    logp = N.log_softmax(logits, axis)
    if np.asarray(t).dtype.kind == "f":
        return _soft_cross_entropy(logp, t, axis, reduction, label_smoothing, weight)
    loss = nll_loss(logp, t, weight, ignore_index, reduction)
    if label_smoothing <= 0.0:
        return loss
    t = np.asarray(t)
    c = logits.shape[axis]
    rows, flat, out_shape = _flatten_classes(
        logp if logp.ndim > 1 else S.unsqueeze(logp, 0),
        t.reshape(-1) if logp.ndim == 1 else t,
    )
    valid = flat != ignore_index
    dtype = raw(logp).dtype
    wc = np.ones(c, dtype) if weight is None else raw(weight).astype(dtype)
    smooth = O.neg(O.sum(O.mul(rows, wc), 1))
    smooth = O.mul(smooth, valid.astype(dtype))
    if reduction == "none":
        smooth = S.reshape(smooth, out_shape if logp.ndim > 1 else ())
    elif reduction == "sum":
        smooth = O.sum(smooth)
    elif reduction == "mean":
        if weight is None:
            smooth = O.div(O.sum(smooth), float(valid.sum()))
        else:
            safe = np.where(valid, flat, 0)
            smooth = O.div(O.sum(smooth), float((wc[safe] * valid).sum()))
    return O.add(O.mul(loss, 1.0 - label_smoothing), O.mul(smooth, label_smoothing / c))


def _soft_cross_entropy(logp, probs, axis, reduction, label_smoothing, weight):
    c = logp.shape[axis]
    probs = np.asarray(probs, raw(logp).dtype)
    if label_smoothing > 0.0:
        probs = probs * (1.0 - label_smoothing) + label_smoothing / c
    terms = O.mul(logp, probs)
    if weight is not None:
        shape = [1] * logp.ndim
        shape[axis] = c
        terms = O.mul(terms, raw(weight).reshape(shape))
    loss = O.neg(O.sum(terms, axis))
    if reduction == "mean":
        n = loss._data.size
        return O.div(O.sum(loss), float(n))
    return _reduce(loss, reduction)


def binary_cross_entropy(
    p: Tensor, y: Any, weight: Any = None, reduction: str = "mean"
) -> Tensor:
    # torch clamps each log term at -100.
    logp = O.clamp(O.log(p), -100.0, None)
    log1mp = O.clamp(O.log(O.sub(1.0, p)), -100.0, None)
    loss = O.neg(O.add(O.mul(logp, y), O.mul(log1mp, O.sub(1.0, y))))
    if weight is not None:
        loss = O.mul(loss, weight)
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(
    x: Tensor,
    y: Any,
    weight: Any = None,
    reduction: str = "mean",
    pos_weight: Any = None,
) -> Tensor:
    # log(1 + exp(-|x|)) + max(-x, 0) is log(1 + exp(-x)) without overflow.
    softplus_neg = O.add(O.log1p(O.exp(O.neg(O.abs(x)))), O.relu(O.neg(x)))
    if pos_weight is None:
        loss = O.add(O.mul(O.sub(1.0, y), x), softplus_neg)
    else:
        coef = O.add(O.mul(O.sub(pos_weight, 1.0), y), 1.0)
        loss = O.add(O.mul(O.sub(1.0, y), x), O.mul(coef, softplus_neg))
    if weight is not None:
        loss = O.mul(loss, weight)
    return _reduce(loss, reduction)


def logsumexp(x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
    m = np.max(raw(x), axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0).astype(raw(x).dtype)
    out = O.add(O.log(O.sum(O.exp(O.sub(x, m)), axis, True)), m)
    return (
        out
        if keepdims
        else S.squeeze(out, axis)
        if axis is not None
        else S.reshape(out, ())
    )


def var(
    x: Tensor, axis: Any = None, correction: int = 1, keepdims: bool = False
) -> Tensor:
    mean = O.mean(x, axis, True)
    d = O.sub(x, mean)
    n = x._data.size if axis is None else O._count(x.shape, axis)
    return O.div(O.sum(O.mul(d, d), axis, keepdims), float(max(n - correction, 0)))
