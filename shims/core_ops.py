"""The primitive table, elementwise ops, reductions and linear algebra: one ``defprim`` per op.

Shapes and indexing live in ``core_ops_shape``, softmax and image ops in ``core_ops_nn``; the
three modules form one table (``core_engine.PRIMITIVES``).

VJPs receive a backend ``B`` (``RAW`` NumPy forwards, or ``GRAPH`` engine ops when differentiating
with ``create_graph``) so the same line serves first and higher order. Masks are computed on raw
arrays (``raw``): they are constants of the derivative.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import core_engine as E
from .core_engine import Tensor, apply, apply_unary, defprim, raw

ndarray = np.ndarray
_SUM_TO_CACHE: dict = {}
# The ufunc reductions themselves: ndarray.sum/max go through Python wrappers in NumPy.
_add_reduce = np.add.reduce
_max_reduce = np.maximum.reduce


def _shape(x: Any) -> tuple:
    return getattr(x, "shape", ())


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
    out = _add_reduce(x, axes) if axes else x
    return out if out.shape == shape else out.reshape(shape)


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
def _unbroadcast(B: Any, g: Any, shape: tuple) -> Any:
    """Sum ``g`` down to ``shape`` (the common equal-shape case costs one comparison)."""
    return g if g.shape == shape else B.sum_to(g, shape)


P_add = defprim(
    "add",
    np.add,
    lambda B, g, ans, a, b: _unbroadcast(B, g, a.shape),
    lambda B, g, ans, a, b: _unbroadcast(B, g, b.shape),
    saves=False,
)
P_sub = defprim(
    "sub",
    np.subtract,
    lambda B, g, ans, a, b: _unbroadcast(B, g, a.shape),
    lambda B, g, ans, a, b: _unbroadcast(B, B.neg(g), b.shape),
    saves=False,
)
P_mul = defprim(
    "mul",
    np.multiply,
    lambda B, g, ans, a, b: _unbroadcast(B, B.mul(g, b), a.shape),
    lambda B, g, ans, a, b: _unbroadcast(B, B.mul(g, a), b.shape),
)
P_div = defprim(
    "div",
    np.true_divide,
    lambda B, g, ans, a, b: _unbroadcast(B, B.div(g, b), a.shape),
    lambda B, g, ans, a, b: _unbroadcast(B, B.neg(B.div(B.mul(g, ans), b)), b.shape),
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
P_tanh = defprim(
    "tanh", np.tanh, lambda B, g, ans, x: B.mul(g, B.sub(1.0, B.mul(ans, ans)))
)


def _sigmoid_fwd(x: ndarray) -> ndarray:
    # Stable for large |x|: exp of a non-positive number only.
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


P_sigmoid = defprim(
    "sigmoid", _sigmoid_fwd, lambda B, g, ans, x: B.mul(g, B.mul(ans, B.sub(1.0, ans)))
)


_ZEROS: dict = {}


def _zeros_like(x: ndarray) -> ndarray:
    """Read-only zeros of ``x``'s shape and dtype: a view of one shared buffer per dtype.

    NumPy's maximum against a scalar runs a strided loop, about 4x slower than its SIMD loop
    against an array of the same shape; the buffer gives relu that loop without an allocation."""
    n = x.size
    buf = _ZEROS.get(x.dtype)
    if buf is None or buf.size < n:
        buf = _ZEROS[x.dtype] = np.zeros(n, x.dtype)
        buf.flags.writeable = False
    return buf[:n].reshape(x.shape)


def _relu_fwd(x: ndarray) -> ndarray:
    return np.maximum(x, _zeros_like(x)) if x.dtype.kind == "f" else np.maximum(x, 0)


def _relu_mask(x: ndarray) -> ndarray:
    # A float mask: NumPy multiplies by a bool array through a cast loop, about 2x slower.
    m = x > 0
    return m.astype(x.dtype) if x.dtype.kind == "f" else m


P_relu = defprim("relu", _relu_fwd, lambda B, g, ans, x: B.mul(g, _relu_mask(raw(x))))


def _relu_owned_vjp(g: ndarray, ans: ndarray, x: ndarray) -> ndarray:
    if g.shape != x.shape or g.dtype is not x.dtype or g.dtype.kind != "f":
        return np.multiply(g, x > 0)
    return np.multiply(g, _relu_mask(x), out=g)


P_relu.owned_vjp = _relu_owned_vjp

_erf_scalar = np.frompyfunc(math.erf, 1, 1)


def _erf_fwd(x: ndarray) -> ndarray:
    return _erf_scalar(x).astype(x.dtype if x.dtype.kind == "f" else np.float32)


P_erf = defprim(
    "erf",
    _erf_fwd,
    lambda B, g, ans, x: B.mul(
        g, B.mul(B.exp(B.neg(B.mul(x, x))), 2.0 / math.sqrt(math.pi))
    ),
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


P_cast = defprim(
    "cast", _cast_fwd, lambda B, g, ans, x, dtype: B.cast(g, raw(x).dtype), saves=False
)
P_copy = defprim("copy", np.copy, lambda B, g, ans, x: g, saves=False)


# ---------------------------------------------------------------------------------- reductions
def _sum_fwd(x: ndarray, axis: Any = None, keepdims: bool = False) -> ndarray:
    return _add_reduce(x, axis, keepdims=keepdims)


def _mean_fwd(x: ndarray, axis: Any = None, keepdims: bool = False) -> ndarray:
    total = _add_reduce(x, axis, keepdims=keepdims)
    count = _count(x.shape, axis)
    return total / (x.dtype.type(count) if x.dtype.kind == "f" else count)


def _sum_vjp(B, g, ans, x, axis=None, keepdims=False):
    xs = _shape(x)
    if not keepdims:
        g = B.reshape(g, _keep_shape(xs, axis))
    return B.broadcast_to(g, xs)


def _count(shape: tuple, axis: Any) -> int:
    if axis is None:
        return math.prod(shape)
    return math.prod([shape[a] for a in _norm_axis(axis, len(shape))])


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


P_max = defprim(
    "max",
    lambda x, axis=None, keepdims=False: x.max(axis=axis, keepdims=keepdims),
    _extreme_vjp,
)
P_min = defprim(
    "min",
    lambda x, axis=None, keepdims=False: x.min(axis=axis, keepdims=keepdims),
    _extreme_vjp,
)


def _argmax_fwd(x: ndarray, axis: Any = None, keepdims: bool = False) -> ndarray:
    out = np.argmax(x, axis=axis)
    if keepdims:
        out = (
            out.reshape(_keep_shape(x.shape, axis))
            if axis is not None
            else out.reshape((1,) * x.ndim)
        )
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
    if B is E.RAW and x.ndim == 2:
        return np.matmul(g.T, x)
    xs = _shape(x)
    if len(xs) != 2:
        x = B.reshape(x, (-1, xs[-1]))
        g = B.reshape(g, (-1, _shape(g)[-1]))
    return B.matmul(B.transpose(g, (1, 0)), x)


def _linear_vjp_b(B, g, ans, x, w, b=None):
    if B is E.RAW and g.ndim == 2 and b.shape == g.shape[1:]:
        return _add_reduce(g, 0)
    return B.sum_to(g, _shape(b))


P_linear = defprim(
    "linear",
    _linear_fwd,
    lambda B, g, ans, x, w, b=None: B.matmul(g, w),
    _linear_vjp_w,
    _linear_vjp_b,
)


# ---------------------------------------------------------------------------------- engine functions
def _binary(prim):
    return E.make_binary(prim)


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


matmul = E.make_binary(P_matmul)


def linear(x: Tensor, w: Tensor, b: Tensor | None = None) -> Tensor:
    if not (
        isinstance(x, Tensor)
        and isinstance(w, Tensor)
        and (b is None or isinstance(b, Tensor))
    ):
        return apply(P_linear, (x, w, b))
    # The layer hot path, dispatched inline.
    xd, wd = x._data, w._data
    out = xd @ wd.T
    if b is None:
        bd = None
    else:
        bd = b._data
        out += bd
    t = object.__new__(x._out_cls)
    t._data = out
    if E._grad_enabled and (
        x.requires_grad or w.requires_grad or (b is not None and b.requires_grad)
    ):
        t.requires_grad = True
        t._ctx = E.Node(P_linear, (x, w, b), (xd, wd, bd), E.EMPTY)
    else:
        t.requires_grad = False
        t._ctx = None
    return t
