"""The primitive table: each op's NumPy forward next to its VJP makers, one ``defprim`` per op.

VJPs receive a backend ``B`` (``RAW`` NumPy forwards, or ``GRAPH`` engine ops when differentiating
with ``create_graph``) so the same line serves first and higher order. Masks are computed on raw
arrays (``raw``): they are constants of the derivative.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import core_engine as E
from .core_engine import F64, Tensor, apply, apply_unary, defprim, raw

ndarray = np.ndarray
_SUM_TO_CACHE: dict = {}


def _shape(x: Any) -> tuple:
    return x.shape if hasattr(x, "shape") else ()


def _sum_to_plan(src: tuple, dst: tuple) -> tuple:
    key = (src, dst)
    plan = _SUM_TO_CACHE.get(key)
    if plan is None:
        lead = len(src) - len(dst)
        axes = tuple(range(lead)) + tuple(
            lead + i for i, n in enumerate(dst) if n == 1 and src[lead + i] != 1
        )
        plan = _SUM_TO_CACHE[key] = axes
    return plan


def _sum_to_fwd(x: ndarray, shape: tuple) -> ndarray:
    xs = x.shape
    if xs == shape:
        return x
    axes = _sum_to_plan(xs, shape)
    return x.sum(axis=axes).reshape(shape) if axes else x.reshape(shape)


def _broadcast_fwd(x: ndarray, shape: tuple) -> ndarray:
    if x.shape == shape:
        return x
    out = np.empty(shape, x.dtype)
    out[...] = x
    return out


def _norm_axis(axis: Any, ndim: int) -> tuple:
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (int, np.integer)):
        axis = (axis,)
    return tuple(int(a) % ndim if ndim else 0 for a in axis)


def _keep_shape(shape: tuple, axis: Any) -> tuple:
    axes = _norm_axis(axis, len(shape))
    return tuple(1 if i in axes else n for i, n in enumerate(shape))


def _swap_last(x: Any) -> tuple:
    n = len(_shape(x))
    return tuple(range(n - 2)) + (n - 1, n - 2)


# ---------------------------------------------------------------------------------- elementwise
P_add = defprim(
    "add",
    np.add,
    lambda B, g, ans, a, b: B.sum_to(g, a.shape),
    lambda B, g, ans, a, b: B.sum_to(g, b.shape),
    saves=False,
)
P_sub = defprim(
    "sub",
    np.subtract,
    lambda B, g, ans, a, b: B.sum_to(g, a.shape),
    lambda B, g, ans, a, b: B.sum_to(B.neg(g), b.shape),
    saves=False,
)
P_mul = defprim(
    "mul",
    np.multiply,
    lambda B, g, ans, a, b: B.sum_to(B.mul(g, b), a.shape),
    lambda B, g, ans, a, b: B.sum_to(B.mul(g, a), b.shape),
)
P_div = defprim(
    "div",
    np.true_divide,
    lambda B, g, ans, a, b: B.sum_to(B.div(g, b), a.shape),
    lambda B, g, ans, a, b: B.sum_to(B.neg(B.div(B.mul(g, ans), b)), b.shape),
)


def _pow_vjp_base(B, g, ans, a, b):
    if not isinstance(b, Tensor) and np.ndim(b) == 0 and b == 0:
        return B.mul(g, np.zeros_like(raw(a)))
    bm1 = B.sub(b, 1) if isinstance(b, Tensor) else b - np.asarray(b).dtype.type(1)
    return B.sum_to(B.mul(B.mul(g, b), B.pow(a, bm1)), a.shape)


def _pow_vjp_exp(B, g, ans, a, b):
    ra, rb = raw(a), raw(b)
    zero = (ra == 0) & (rb >= 0)
    safe = B.add(a, zero.astype(ra.dtype)) if np.any(zero) else a
    return B.sum_to(B.mul(B.mul(g, ans), B.log(safe)), b.shape)


P_pow = defprim("pow", np.power, _pow_vjp_base, _pow_vjp_exp)
P_neg = defprim("neg", np.negative, lambda B, g, ans, x: B.neg(g), saves=False)
P_abs = defprim("abs", np.abs, lambda B, g, ans, x: B.mul(g, np.sign(raw(x))))
P_exp = defprim("exp", np.exp, lambda B, g, ans, x: B.mul(g, ans))
P_log = defprim("log", np.log, lambda B, g, ans, x: B.div(g, x))
P_log1p = defprim("log1p", np.log1p, lambda B, g, ans, x: B.div(g, B.add(x, 1.0)))
P_sqrt = defprim("sqrt", np.sqrt, lambda B, g, ans, x: B.div(g, B.mul(ans, 2.0)))
P_sin = defprim("sin", np.sin, lambda B, g, ans, x: B.mul(g, B.cos(x)))
P_cos = defprim("cos", np.cos, lambda B, g, ans, x: B.neg(B.mul(g, B.sin(x))))
P_tanh = defprim("tanh", np.tanh, lambda B, g, ans, x: B.mul(g, B.sub(1.0, B.mul(ans, ans))))


def _sigmoid_fwd(x: ndarray) -> ndarray:
    # Stable for large |x|: exp of a non-positive number only.
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


P_sigmoid = defprim(
    "sigmoid", _sigmoid_fwd, lambda B, g, ans, x: B.mul(g, B.mul(ans, B.sub(1.0, ans)))
)


def _relu_fwd(x: ndarray) -> ndarray:
    return np.maximum(x, 0, dtype=x.dtype) if x.dtype.kind == "f" else np.maximum(x, 0)


P_relu = defprim("relu", _relu_fwd, lambda B, g, ans, x: B.mul(g, raw(x) > 0))

_erf_scalar = np.frompyfunc(math.erf, 1, 1)


def _erf_fwd(x: ndarray) -> ndarray:
    return _erf_scalar(x).astype(x.dtype if x.dtype.kind == "f" else np.float32)


P_erf = defprim(
    "erf",
    _erf_fwd,
    lambda B, g, ans, x: B.mul(g, B.mul(B.exp(B.neg(B.mul(x, x))), 2.0 / math.sqrt(math.pi))),
)


def _clamp_fwd(x: ndarray, min: Any = None, max: Any = None) -> ndarray:
    if min is not None:
        x = np.maximum(x, min, dtype=x.dtype)
    if max is not None:
        x = np.minimum(x, max, dtype=x.dtype)
    return x


def _clamp_vjp(B, g, ans, x, min=None, max=None):
    rx = raw(x)
    mask = np.ones(rx.shape, bool)
    if min is not None:
        mask &= rx >= min
    if max is not None:
        mask &= rx <= max
    return B.mul(g, mask)


P_clamp = defprim("clamp", _clamp_fwd, _clamp_vjp)


def _tie_mask(a: Any, b: Any, first: bool) -> ndarray:
    ra, rb = raw(a), raw(b)
    win = (ra > rb) if first else (ra < rb)
    dtype = np.result_type(ra, rb)
    return win.astype(dtype) + (ra == rb).astype(dtype) * 0.5


P_maximum = defprim(
    "maximum",
    np.maximum,
    lambda B, g, ans, a, b: B.sum_to(B.mul(g, _tie_mask(a, b, True)), a.shape),
    lambda B, g, ans, a, b: B.sum_to(B.mul(g, _tie_mask(b, a, True)), b.shape),
)
P_minimum = defprim(
    "minimum",
    np.minimum,
    lambda B, g, ans, a, b: B.sum_to(B.mul(g, _tie_mask(a, b, False)), a.shape),
    lambda B, g, ans, a, b: B.sum_to(B.mul(g, _tie_mask(b, a, False)), b.shape),
)
P_where = defprim(
    "where",
    np.where,
    None,
    lambda B, g, ans, c, a, b: B.sum_to(B.mul(g, raw(c)), a.shape),
    lambda B, g, ans, c, a, b: B.sum_to(B.mul(g, ~raw(c)), b.shape),
)
COMPARISONS = {}
for _name, _fn in [
    ("eq", np.equal),
    ("ne", np.not_equal),
    ("lt", np.less),
    ("le", np.less_equal),
    ("gt", np.greater),
    ("ge", np.greater_equal),
    ("logical_and", np.logical_and),
    ("logical_or", np.logical_or),
]:
    COMPARISONS[_name] = defprim(_name, _fn, differentiable=False)
P_logical_not = defprim("logical_not", np.logical_not, differentiable=False)
P_sign = defprim("sign", np.sign, lambda B, g, ans, x: B.mul(g, 0.0))
P_floor = defprim("floor", np.floor, lambda B, g, ans, x: B.mul(g, 0.0))
P_ceil = defprim("ceil", np.ceil, lambda B, g, ans, x: B.mul(g, 0.0))
P_round = defprim("round", np.round, lambda B, g, ans, x: B.mul(g, 0.0))


def _cast_fwd(x: ndarray, dtype: Any) -> ndarray:
    return x.astype(dtype, copy=False)


P_cast = defprim("cast", _cast_fwd, lambda B, g, ans, x, dtype: B.cast(g, raw(x).dtype), saves=False)
P_copy = defprim("copy", np.copy, lambda B, g, ans, x: g, saves=False)


# ---------------------------------------------------------------------------------- reductions
def _sum_fwd(x: ndarray, axis: Any = None, keepdims: bool = False) -> ndarray:
    return x.sum(axis=axis, keepdims=keepdims)


def _mean_fwd(x: ndarray, axis: Any = None, keepdims: bool = False) -> ndarray:
    return x.mean(axis=axis, keepdims=keepdims)


def _sum_vjp(B, g, ans, x, axis=None, keepdims=False):
    xs = _shape(x)
    if not keepdims:
        g = B.reshape(g, _keep_shape(xs, axis))
    return B.broadcast_to(g, xs)


def _count(shape: tuple, axis: Any) -> int:
    return int(np.prod([shape[a] for a in _norm_axis(axis, len(shape))], dtype=np.int64))


def _mean_vjp(B, g, ans, x, axis=None, keepdims=False):
    xs = _shape(x)
    return B.div(_sum_vjp(B, g, ans, x, axis, keepdims), float(_count(xs, axis)))


P_sum = defprim("sum", _sum_fwd, _sum_vjp, saves=False)
P_mean = defprim("mean", _mean_fwd, _mean_vjp, saves=False)


def _extreme_vjp(B, g, ans, x, axis=None, keepdims=False):
    rx = raw(x)
    xs = rx.shape
    ra = raw(ans)
    if not keepdims:
        ra = ra.reshape(_keep_shape(xs, axis))
        g = B.reshape(g, _keep_shape(xs, axis))
    mask = rx == ra
    mask = mask / mask.sum(axis=axis, keepdims=True).astype(rx.dtype)
    return B.mul(B.broadcast_to(g, xs), mask.astype(rx.dtype))


P_max = defprim("max", lambda x, axis=None, keepdims=False: x.max(axis=axis, keepdims=keepdims), _extreme_vjp)
P_min = defprim("min", lambda x, axis=None, keepdims=False: x.min(axis=axis, keepdims=keepdims), _extreme_vjp)


def _argmax_fwd(x: ndarray, axis: Any = None, keepdims: bool = False) -> ndarray:
    out = np.argmax(x, axis=axis)
    if keepdims:
        out = out.reshape(_keep_shape(x.shape, axis)) if axis is not None else out.reshape((1,) * x.ndim)
    return out.astype(np.int64)


def _argmin_fwd(x: ndarray, axis: Any = None, keepdims: bool = False) -> ndarray:
    return _argmax_fwd(-x if x.dtype.kind != "b" else ~x, axis, keepdims)


P_argmax = defprim("argmax", _argmax_fwd, differentiable=False)
P_argmin = defprim("argmin", _argmin_fwd, differentiable=False)


# ---------------------------------------------------------------------------------- linear algebra
def _matmul_vjp_a(B, g, ans, a, b):
    an, bn = len(_shape(a)), len(_shape(b))
    if an == 1 and bn == 1:
        return B.mul(g, b)
    if bn == 1:
        return B.sum_to(B.mul(B.unsqueeze(g, -1), b), _shape(a))
    if an == 1:
        return B.sum_to(B.squeeze(B.matmul(b, B.unsqueeze(g, -1)), -1), _shape(a))
    return B.sum_to(B.matmul(g, B.transpose(b, _swap_last(b))), _shape(a))


def _matmul_vjp_b(B, g, ans, a, b):
    an, bn = len(_shape(a)), len(_shape(b))
    if an == 1 and bn == 1:
        return B.mul(g, a)
    if an == 1:
        return B.sum_to(B.mul(B.unsqueeze(a, -1), B.unsqueeze(g, -2)), _shape(b))
    if bn == 1:
        return B.sum_to(B.mul(a, B.unsqueeze(g, -1)), _shape(b))
    return B.sum_to(B.matmul(B.transpose(a, _swap_last(a)), g), _shape(b))


P_matmul = defprim("matmul", np.matmul, _matmul_vjp_a, _matmul_vjp_b)


def _linear_fwd(x: ndarray, w: ndarray, b: Any = None) -> ndarray:
    out = x @ w.T
    if b is not None:
        out += b
    return out


def _linear_vjp_w(B, g, ans, x, w, b=None):
    xs = _shape(x)
    if len(xs) != 2:
        x = B.reshape(x, (-1, xs[-1]))
        g = B.reshape(g, (-1, _shape(g)[-1]))
    return B.matmul(B.transpose(g, (1, 0)), x)


P_linear = defprim(
    "linear",
    _linear_fwd,
    lambda B, g, ans, x, w, b=None: B.matmul(g, w),
    _linear_vjp_w,
    lambda B, g, ans, x, w, b=None: B.sum_to(g, _shape(b)),
)


# ---------------------------------------------------------------------------------- shapes
def _reshape_fwd(x: ndarray, shape: tuple) -> ndarray:
    return x.reshape(shape)


def _back_to_shape(B, g, ans, x, *_, **__):
    return B.reshape(g, _shape(x))


P_reshape = defprim("reshape", _reshape_fwd, _back_to_shape, saves=False)
P_transpose = defprim(
    "transpose",
    lambda x, axes=None: x.transpose(axes),
    lambda B, g, ans, x, axes=None: B.transpose(
        g, None if axes is None else tuple(np.argsort([a % len(_shape(x)) for a in axes]).tolist())
    ),
    saves=False,
)


def _squeeze_fwd(x: ndarray, axis: Any = None) -> ndarray:
    if axis is None:
        return x.squeeze()
    axes = tuple(a for a in _norm_axis(axis, x.ndim) if x.shape[a] == 1)
    return x.squeeze(axes) if axes else x


def _unsqueeze_fwd(x: ndarray, axis: int) -> ndarray:
    nd = x.ndim + 1
    axis = axis % nd
    shape = x.shape[:axis] + (1,) + x.shape[axis:]
    return x.reshape(shape)


P_squeeze = defprim("squeeze", _squeeze_fwd, _back_to_shape, saves=False)
P_unsqueeze = defprim("unsqueeze", _unsqueeze_fwd, _back_to_shape, saves=False)
P_sum_to = defprim(
    "sum_to", _sum_to_fwd, lambda B, g, ans, x, shape: B.broadcast_to(g, _shape(x)), saves=False
)
P_broadcast_to = defprim(
    "broadcast_to", _broadcast_fwd, lambda B, g, ans, x, shape: B.sum_to(g, _shape(x)), saves=False
)


def _concat_fwd(*xs: ndarray, axis: int = 0) -> ndarray:
    return np.concatenate(xs, axis=axis)


def _concat_vjp(i, B, g, ans, *xs, axis=0):
    nd = len(_shape(ans))
    ax = axis % nd
    start = builtins.sum(_shape(x)[ax] for x in xs[:i])
    index = (slice(None),) * ax + (slice(start, start + _shape(xs[i])[ax]),)
    return B.getitem(g, index)


P_concat = defprim("concat", _concat_fwd, argnum_vjp=_concat_vjp, saves=False)


def _stack_fwd(*xs: ndarray, axis: int = 0) -> ndarray:
    return np.stack(xs, axis=axis)


def _stack_vjp(i, B, g, ans, *xs, axis=0):
    ax = axis % len(_shape(ans))
    return B.getitem(g, (slice(None),) * ax + (i,))


P_stack = defprim("stack", _stack_fwd, argnum_vjp=_stack_vjp, saves=False)


def _getitem_fwd(x: ndarray, index: Any) -> ndarray:
    out = x[index]
    return out


def _is_basic(index: Any) -> bool:
    items = index if isinstance(index, tuple) else (index,)
    return all(isinstance(i, (int, np.integer, slice)) or i is None or i is Ellipsis for i in items)


def _index_add_fwd(g: ndarray, shape: tuple, index: Any) -> ndarray:
    out = np.zeros(shape, g.dtype)
    if _is_basic(index):
        out[index] = g
    else:
        np.add.at(out, index, g)
    return out


P_getitem = defprim(
    "getitem", _getitem_fwd, lambda B, g, ans, x, index: B.index_add(g, _shape(x), index)
)
P_index_add = defprim(
    "index_add", _index_add_fwd, lambda B, g, ans, gx, shape, index: B.getitem(g, index), saves=False
)


def _gather_index(shape: tuple, axis: int, index: ndarray) -> tuple:
    grids = list(np.ogrid[tuple(slice(0, n) for n in index.shape)])
    grids[axis] = index
    return tuple(grids)


def _gather_fwd(x: ndarray, axis: int, index: ndarray) -> ndarray:
    axis = axis % x.ndim
    return x[_gather_index(x.shape, axis, index)]


def _scatter_add_fwd(g: ndarray, shape: tuple, axis: int, index: ndarray) -> ndarray:
    out = np.zeros(shape, g.dtype)
    np.add.at(out, _gather_index(shape, axis % len(shape), index), g)
    return out


P_gather = defprim(
    "gather",
    _gather_fwd,
    lambda B, g, ans, x, axis, index: B.scatter_add(g, _shape(x), axis, index),
)
P_scatter_add = defprim(
    "scatter_add",
    _scatter_add_fwd,
    lambda B, g, ans, gx, shape, axis, index: B.gather(g, axis, index),
    saves=False,
)


def _pad_fwd(x: ndarray, pads: tuple, value: float = 0.0) -> ndarray:
    return np.pad(x, pads, mode="constant", constant_values=value)


def _pad_vjp(B, g, ans, x, pads, value=0.0):
    return B.getitem(g, tuple(slice(lo, lo + n) for (lo, _), n in zip(pads, _shape(x))))


P_pad = defprim("pad", _pad_fwd, _pad_vjp, saves=False)


# ---------------------------------------------------------------------------------- softmax
def _softmax_fwd(x: ndarray, axis: int = -1) -> ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    e /= e.sum(axis=axis, keepdims=True)
    return e


def _log_softmax_fwd(x: ndarray, axis: int = -1) -> ndarray:
    s = x - x.max(axis=axis, keepdims=True)
    s -= np.log(np.exp(s).sum(axis=axis, keepdims=True))
    return s


P_softmax = defprim(
    "softmax",
    _softmax_fwd,
    lambda B, g, ans, x, axis=-1: B.mul(ans, B.sub(g, B.sum(B.mul(g, ans), axis, True))),
)
P_log_softmax = defprim(
    "log_softmax",
    _log_softmax_fwd,
    lambda B, g, ans, x, axis=-1: B.sub(g, B.mul(B.exp(ans), B.sum(g, axis, True))),
)


# ---------------------------------------------------------------------------------- images
def _im2col_fwd(x: ndarray, kernel: tuple, stride: tuple, pads: tuple, dilation: tuple, value: float = 0.0):
    """(N, C, H, W) -> (N, C*kh*kw, OH*OW); pads = (top, bottom, left, right)."""
    n, c, h, w = x.shape
    kh, kw = kernel
    sh, sw = stride
    dh, dw = dilation
    if any(pads):
        x = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[1]), (pads[2], pads[3])), constant_values=value)
    hp, wp = x.shape[2], x.shape[3]
    oh = (hp - dh * (kh - 1) - 1) // sh + 1
    ow = (wp - dw * (kw - 1) - 1) // sw + 1
    s = x.strides
    windows = np.lib.stride_tricks.as_strided(
        x, (n, c, kh, kw, oh, ow), (s[0], s[1], s[2] * dh, s[3] * dw, s[2] * sh, s[3] * sw), writeable=False
    )
    return windows.reshape(n, c * kh * kw, oh * ow)


def _col2im_fwd(cols: ndarray, shape: tuple, kernel: tuple, stride: tuple, pads: tuple, dilation: tuple):
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
            out[:, :, i * dh : i * dh + sh * (oh - 1) + 1 : sh, j * dw : j * dw + sw * (ow - 1) + 1 : sw] += cols[
                :, :, i, j
            ]
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
    lambda B, g, ans, cols, shape, kernel, stride, pads, dilation: B.im2col(g, kernel, stride, pads, dilation),
    saves=False,
)


# ---------------------------------------------------------------------------------- engine functions
def _binary(prim):
    return E._BINARY[prim]


add = _binary(P_add)
sub = _binary(P_sub)
mul = _binary(P_mul)
div = _binary(P_div)
pow = _binary(P_pow)
maximum = _binary(P_maximum)
minimum = _binary(P_minimum)
eq = _binary(COMPARISONS["eq"])
ne = _binary(COMPARISONS["ne"])
lt = _binary(COMPARISONS["lt"])
le = _binary(COMPARISONS["le"])
gt = _binary(COMPARISONS["gt"])
ge = _binary(COMPARISONS["ge"])
logical_and = _binary(COMPARISONS["logical_and"])
logical_or = _binary(COMPARISONS["logical_or"])


def _unary(prim):
    def op(x: Any) -> Tensor:
        return apply_unary(prim, x)

    op.__name__ = prim.name
    return op


neg = _unary(P_neg)
abs = _unary(P_abs)
exp = _unary(P_exp)
log = _unary(P_log)
log1p = _unary(P_log1p)
sqrt = _unary(P_sqrt)
sin = _unary(P_sin)
cos = _unary(P_cos)
tanh = _unary(P_tanh)
sigmoid = _unary(P_sigmoid)
relu = _unary(P_relu)
erf = _unary(P_erf)
sign = _unary(P_sign)
floor = _unary(P_floor)
ceil = _unary(P_ceil)
round = _unary(P_round)
logical_not = _unary(P_logical_not)
copy = _unary(P_copy)


def cast(x: Any, dtype: Any) -> Tensor:
    dtype = np.dtype(dtype)
    if isinstance(x, Tensor) and x._data.dtype == dtype:
        return x
    return apply_unary(P_cast, x, {"dtype": dtype})


def clamp(x: Any, min: Any = None, max: Any = None) -> Tensor:
    return apply_unary(P_clamp, x, {"min": raw(min), "max": raw(max)})


def where(cond: Any, a: Any, b: Any) -> Tensor:
    cond = np.asarray(raw(cond), dtype=bool)
    if not isinstance(a, Tensor) and isinstance(b, Tensor):
        a = E._const(a, b._data)
    elif not isinstance(b, Tensor) and isinstance(a, Tensor):
        b = E._const(b, a._data)
    return apply(P_where, (cond, a, b))


def _axis_arg(axis: Any) -> Any:
    return tuple(axis) if isinstance(axis, list) else axis


def sum(x: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    return apply_unary(P_sum, x, {"axis": _axis_arg(axis), "keepdims": keepdims})


def mean(x: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    return apply_unary(P_mean, x, {"axis": _axis_arg(axis), "keepdims": keepdims})


def max(x: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    return apply_unary(P_max, x, {"axis": _axis_arg(axis), "keepdims": keepdims})


def min(x: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    return apply_unary(P_min, x, {"axis": _axis_arg(axis), "keepdims": keepdims})


def argmax(x: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    return apply_unary(P_argmax, x, {"axis": axis, "keepdims": keepdims})


def argmin(x: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    return apply_unary(P_argmin, x, {"axis": axis, "keepdims": keepdims})


matmul = E._BINARY[P_matmul]


def linear(x: Tensor, w: Tensor, b: Tensor | None = None) -> Tensor:
    return apply(P_linear, (x, w, b))


def reshape(x: Any, shape: Any) -> Tensor:
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    return apply_unary(P_reshape, x, {"shape": tuple(shape)})


def transpose(x: Any, axes: Any = None) -> Tensor:
    return apply_unary(P_transpose, x, {"axes": None if axes is None else tuple(axes)})


def swapaxes(x: Any, a: int, b: int) -> Tensor:
    axes = list(range(x.ndim))
    axes[a], axes[b] = axes[b], axes[a]
    return transpose(x, axes)


def squeeze(x: Any, axis: Any = None) -> Tensor:
    return apply_unary(P_squeeze, x, {"axis": _axis_arg(axis)})


def unsqueeze(x: Any, axis: int) -> Tensor:
    return apply_unary(P_unsqueeze, x, {"axis": axis})


def flatten(x: Any, start: int = 0, end: int = -1) -> Tensor:
    shape = x.shape
    nd = len(shape)
    if nd == 0:
        return reshape(x, (1,))
    start, end = start % nd, end % nd
    new = shape[:start] + (int(np.prod(shape[start : end + 1], dtype=np.int64)),) + shape[end + 1 :]
    return reshape(x, new)


def sum_to(x: Any, shape: tuple) -> Tensor:
    shape = tuple(shape)
    if isinstance(x, Tensor) and x._data.shape == shape:
        return x
    return apply_unary(P_sum_to, x, {"shape": shape})


def broadcast_to(x: Any, shape: tuple) -> Tensor:
    shape = tuple(shape)
    if isinstance(x, Tensor) and x._data.shape == shape:
        return x
    return apply_unary(P_broadcast_to, x, {"shape": shape})


def concat(seq: Sequence[Any], axis: int = 0) -> Tensor:
    return apply(P_concat, tuple(seq), {"axis": axis})


def stack(seq: Sequence[Any], axis: int = 0) -> Tensor:
    return apply(P_stack, tuple(seq), {"axis": axis})


def split(x: Tensor, sizes_or_sections: Any, axis: int = 0) -> list[Tensor]:
    """torch.split semantics: an int is the size of each chunk; a list gives the sizes."""
    n = x.shape[axis]
    if isinstance(sizes_or_sections, (int, np.integer)):
        size = int(sizes_or_sections)
        sizes = [size] * (n // size) + ([n % size] if n % size else [])
    else:
        sizes = list(sizes_or_sections)
    ax = axis % x.ndim
    out, start = [], 0
    for s in sizes:
        out.append(getitem(x, (slice(None),) * ax + (slice(start, start + s),)))
        start += s
    return out


def chunk(x: Tensor, chunks: int, axis: int = 0) -> list[Tensor]:
    n = x.shape[axis]
    size = -(-n // chunks)
    return split(x, size, axis)


def _index_arg(index: Any) -> Any:
    if isinstance(index, Tensor):
        return index._data
    if isinstance(index, tuple):
        return tuple(i._data if isinstance(i, Tensor) else (np.asarray(i) if isinstance(i, list) else i) for i in index)
    if isinstance(index, list):
        return np.asarray(index)
    return index


def getitem(x: Any, index: Any) -> Tensor:
    return apply_unary(P_getitem, x, {"index": _index_arg(index)})


def index_add(g: Any, shape: tuple, index: Any) -> Tensor:
    return apply_unary(P_index_add, g, {"shape": tuple(shape), "index": _index_arg(index)})


def gather(x: Any, axis: int, index: Any) -> Tensor:
    return apply_unary(P_gather, x, {"axis": axis, "index": np.asarray(raw(index))})


def scatter_add(g: Any, shape: tuple, axis: int, index: Any) -> Tensor:
    return apply_unary(P_scatter_add, g, {"shape": tuple(shape), "axis": axis, "index": np.asarray(raw(index))})


def pad(x: Any, pads: Sequence[tuple], value: float = 0.0) -> Tensor:
    """NumPy-style pads: one (before, after) pair per axis."""
    return apply_unary(P_pad, x, {"pads": tuple(tuple(p) for p in pads), "value": value})


def softmax(x: Any, axis: int = -1) -> Tensor:
    return apply_unary(P_softmax, x, {"axis": axis})


def log_softmax(x: Any, axis: int = -1) -> Tensor:
    return apply_unary(P_log_softmax, x, {"axis": axis})


def im2col(x: Any, kernel: tuple, stride: tuple, pads: tuple, dilation: tuple, value: float = 0.0) -> Tensor:
    params = {"kernel": kernel, "stride": stride, "pads": pads, "dilation": dilation, "value": value}
    return apply_unary(P_im2col, x, params)


def col2im(cols: Any, shape: tuple, kernel: tuple, stride: tuple, pads: tuple, dilation: tuple) -> Tensor:
    params = {"shape": tuple(shape), "kernel": kernel, "stride": stride, "pads": pads, "dilation": dilation}
    return apply_unary(P_col2im, cols, params)


ENGINE_FUNCTIONS = {
    name: fn
    for name, fn in dict(globals()).items()
    if callable(fn)
    and not name.startswith("_")
    and (getattr(fn, "__module__", None) == __name__ or fn in E._BINARY.values())
}


def _raw_backend() -> dict:
    table = {name: prim.forward for name, prim in E.PRIMITIVES.items()}
    table["cast"] = lambda x, dtype: x.astype(dtype, copy=False)
    table["clamp"] = _clamp_fwd
    table["sum"] = lambda x, axis=None, keepdims=False: x.sum(axis=axis, keepdims=keepdims)
    table["getitem"] = lambda x, index: x[index]
    table["gather"] = _gather_fwd
    table["where"] = lambda c, a, b: np.where(c, a, b)
    table["transpose"] = lambda x, axes=None: x.transpose(axes)
    table["unsqueeze"] = _unsqueeze_fwd
    table["squeeze"] = _squeeze_fwd
    return table


E.RAW.__dict__.update(_raw_backend())
E.GRAPH.__dict__.update(ENGINE_FUNCTIONS)
assert F64  # re-exported dtype constants live in core_engine
