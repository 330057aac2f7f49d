"""Primitives for networks: softmax, fused cross-entropy, and im2col/col2im for convolution."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import core_engine as E
from .core_engine import RAW, Tensor, apply_unary, defprim, raw
from .core_ops import _add_reduce, _max_reduce, _shape

ndarray = np.ndarray


# ---------------------------------------------------------------------------------- softmax
def _softmax_fwd(x: ndarray, axis: int = -1) -> ndarray:
    e = np.exp(x - _max_reduce(x, axis, keepdims=True))
    e /= _add_reduce(e, axis, keepdims=True)
    return e


def _log_softmax_fwd(x: ndarray, axis: int = -1) -> ndarray:
    s = x - _max_reduce(x, axis, keepdims=True)
    s -= np.log(_add_reduce(np.exp(s), axis, keepdims=True))
    return s


P_softmax = defprim(
    "softmax",
    _softmax_fwd,
    lambda B, g, ans, x, axis=-1: B.mul(
        ans, B.sub(g, B.sum(B.mul(g, ans), axis, True))
    ),
)
P_log_softmax = defprim(
    "log_softmax",
    _log_softmax_fwd,
    lambda B, g, ans, x, axis=-1: B.sub(g, B.mul(B.exp(ans), B.sum(g, axis, True))),
)


_ROWS: dict[int, ndarray] = {}


def _rows(n: int) -> ndarray:
    rows = _ROWS.get(n)
    if rows is None:
        rows = np.arange(n)
        rows.flags.writeable = False
        if n <= 65536:
            _ROWS[n] = rows
    return rows


def _softmax_xent_fwd(x: ndarray, target: ndarray) -> ndarray:
    """Mean cross-entropy of (N, C) logits against class indices, in one pass."""
    s = x - _max_reduce(x, 1, keepdims=True)
    lse = np.log(_add_reduce(np.exp(s), 1))
    n = s.shape[0]
    return _add_reduce(lse - s[_rows(n), target]) / x.dtype.type(n)


def _softmax_xent_probs(x: ndarray, target: ndarray) -> tuple[ndarray, ndarray]:
    """The loss of ``_softmax_xent_fwd`` and the softmax it passes through (kept for the VJP)."""
    n, c = x.shape
    if c <= 32 and n >= 32:
        # Few classes: reductions along short rows are slow in NumPy, so work on (C, N).
        xt = np.ascontiguousarray(x.T)
        st = xt - _max_reduce(xt, 0)
        e = np.exp(st)
        z = _add_reduce(e, 0)
        rows = _ROWS.get(n)  # the memo read inline: this is the training hot path
        if rows is None:
            rows = _rows(n)
        loss = _add_reduce(np.log(z) - st[target, rows]) / x.dtype.type(n)
        e /= z
        return loss, e.T
    s = x - _max_reduce(x, 1, keepdims=True)
    e = np.exp(s)
    z = _add_reduce(e, 1, keepdims=True)
    n = s.shape[0]
    loss = _add_reduce(np.log(z[:, 0]) - s[_rows(n), target]) / x.dtype.type(n)
    e /= z
    return loss, e


def _softmax_xent_vjp(B, g, ans, x, probs=None, target=None):
    if B is RAW:
        n = x.shape[0]
        if probs is None:
            p = np.exp(x - _max_reduce(x, 1, keepdims=True))
            p /= _add_reduce(p, 1, keepdims=True)
        else:
            p = probs.copy()
        rows = _ROWS.get(n)
        if rows is None:
            rows = _rows(n)
        p[rows, target] -= 1
        p *= g / x.dtype.type(n)
        return p
    n, c = _shape(x)
    onehot = np.zeros((n, c), raw(x).dtype)
    onehot[np.arange(n), target] = 1
    return B.mul(B.sub(B.softmax(x, 1), onehot), B.div(g, float(n)))


P_softmax_xent = defprim("softmax_cross_entropy", _softmax_xent_fwd, _softmax_xent_vjp)


# ---------------------------------------------------------------------------------- images
def _im2col_fwd(
    x: ndarray,
    kernel: tuple,
    stride: tuple,
    pads: tuple,
    dilation: tuple,
    value: float = 0.0,
):
    """(N, C, H, W) -> (N, C*kh*kw, OH*OW); pads = (top, bottom, left, right)."""
    n, c = x.shape[:2]
    kh, kw = kernel
    sh, sw = stride
    dh, dw = dilation
    if any(pads):
        x = np.pad(
            x,
            ((0, 0), (0, 0), (pads[0], pads[1]), (pads[2], pads[3])),
            constant_values=value,
        )
    hp, wp = x.shape[2], x.shape[3]
    oh = (hp - dh * (kh - 1) - 1) // sh + 1
    ow = (wp - dw * (kw - 1) - 1) // sw + 1
    s = x.strides
    windows = np.lib.stride_tricks.as_strided(
        x,
        (n, c, kh, kw, oh, ow),
        (s[0], s[1], s[2] * dh, s[3] * dw, s[2] * sh, s[3] * sw),
        writeable=False,
    )
    return windows.reshape(n, c * kh * kw, oh * ow)


def _col2im_fwd(
    cols: ndarray,
    shape: tuple,
    kernel: tuple,
    stride: tuple,
    pads: tuple,
    dilation: tuple,
):
    n, c, h, w = shape
    kh, kw = kernel
    sh, sw = stride
    dh, dw = dilation
    hp, wp = h + pads[0] + pads[1], w + pads[2] + pads[3]
    oh = (hp - dh * (kh - 1) - 1) // sh + 1
    ow = (wp - dw * (kw - 1) - 1) // sw + 1
    cols = cols.reshape(n, c, kh, kw, oh, ow)
    out = np.zeros((n, c, hp, wp), cols.dtype)
    for i in range(kh):
        for j in range(kw):
            out[
                :,
                :,
                i * dh : i * dh + sh * (oh - 1) + 1 : sh,
                j * dw : j * dw + sw * (ow - 1) + 1 : sw,
            ] += cols[:, :, i, j]
    return out[:, :, pads[0] : pads[0] + h, pads[2] : pads[2] + w]


P_im2col = defprim(
    "im2col",
    _im2col_fwd,
    lambda B, g, ans, x, kernel, stride, pads, dilation, value=0.0: B.col2im(
        g, _shape(x), kernel, stride, pads, dilation
    ),
    saves=False,
)
P_col2im = defprim(
    "col2im",
    _col2im_fwd,
    lambda B, g, ans, cols, shape, kernel, stride, pads, dilation: B.im2col(
        g, kernel, stride, pads, dilation
    ),
    saves=False,
)


def softmax(x: Any, axis: int = -1) -> Tensor:
    return apply_unary(P_softmax, x, {"axis": axis})


def log_softmax(x: Any, axis: int = -1) -> Tensor:
    return apply_unary(P_log_softmax, x, {"axis": axis})


def softmax_cross_entropy(logits: Any, target: Any) -> Tensor:
    """Mean cross-entropy of (N, C) logits and int class indices (the common case, fused)."""
    if target.__class__ is not ndarray:
        target = np.asarray(raw(target))
    if not (
        E._grad_enabled
        and isinstance(logits, Tensor)
        and logits.requires_grad
        and logits._data.dtype.kind == "f"
    ):
        return apply_unary(P_softmax_xent, logits, {"target": target})
    # Recorded with the softmax as an extra saved array: the first-order VJP reuses it.
    xd = logits._data
    loss, probs = _softmax_xent_probs(xd, target)
    t = object.__new__(logits._out_cls)
    t._data = loss if loss.__class__ is ndarray else np.asarray(loss)
    t.requires_grad = True
    t._ctx = E.Node(P_softmax_xent, (logits,), (xd, probs), {"target": target})
    return t


def im2col(
    x: Any,
    kernel: tuple,
    stride: tuple,
    pads: tuple,
    dilation: tuple,
    value: float = 0.0,
) -> Tensor:
    params = {
        "kernel": kernel,
        "stride": stride,
        "pads": pads,
        "dilation": dilation,
        "value": value,
    }
    return apply_unary(P_im2col, x, params)


def col2im(
    cols: Any, shape: tuple, kernel: tuple, stride: tuple, pads: tuple, dilation: tuple
) -> Tensor:
    params = {
        "shape": tuple(shape),
        "kernel": kernel,
        "stride": stride,
        "pads": pads,
        "dilation": dilation,
    }
    return apply_unary(P_col2im, cols, params)
