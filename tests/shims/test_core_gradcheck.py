"""Every primitive's VJP against float64 central differences, first and second order.

The test is parametrized over the primitive table: a primitive without an entry in CASES fails.
"""

from __future__ import annotations

import numpy as np
import pytest
from torch2ms.shims import core as C

R = np.random.default_rng(1234)


def arr(*shape, low=-1.0, high=1.0):
    return R.uniform(low, high, shape)


def away(*shape, margin=0.2):
    """Values at least ``margin`` from 0 (so kinks at 0 are not straddled by the differences)."""
    x = R.uniform(margin, 1.0, shape)
    return x * R.choice([-1.0, 1.0], shape)


def positive(*shape):
    return R.uniform(0.5, 2.0, shape)


IDX = np.array([[2, 0, 1], [1, 1, 0]])
HW = arr(1, 2, 5, 5)
K33 = (3, 3)

# name -> list of (function of differentiable tensors, input arrays)
CASES: dict[str, list] = {
    "add": [(C.add, [arr(2, 3), arr(3)]), (lambda a: C.add(a, 2.0), [arr(2)])],
    "sub": [(C.sub, [arr(2, 1), arr(1, 3)])],
    "mul": [(C.mul, [arr(2, 3), arr(2, 1)])],
    "div": [(C.div, [arr(2, 3), positive(3)])],
    "pow": [(C.pow, [positive(2, 3), arr(2, 3)]), (lambda a: C.pow(a, 3.0), [arr(4)])],
    "neg": [(C.neg, [arr(3)])],
    "abs": [(C.abs, [away(3, 2)])],
    "exp": [(C.exp, [arr(3)])],
    "log": [(C.log, [positive(3)])],
    "log1p": [(C.log1p, [positive(3)])],
    "sqrt": [(C.sqrt, [positive(3)])],
    "sin": [(C.sin, [arr(3)])],
    "cos": [(C.cos, [arr(3)])],
    "tanh": [(C.tanh, [arr(3)])],
    "sigmoid": [(C.sigmoid, [arr(3) * 4])],
    "relu": [(C.relu, [away(2, 3)])],
    "erf": [(C.erf, [arr(4)])],
    "clamp": [
        (lambda x: C.clamp(x, -0.5, 0.5), [np.array([-0.9, -0.2, 0.1, 0.8, 0.3])])
    ],
    "maximum": [(C.maximum, [np.array([0.1, 0.9, -0.5]), np.array([0.6, 0.2, -0.9])])],
    "minimum": [(C.minimum, [np.array([0.1, 0.9, -0.5]), np.array([0.6, 0.2, -0.9])])],
    "where": [
        (lambda a, b: C.where(np.array([True, False, True]), a, b), [arr(3), arr(2, 3)])
    ],
    "sign": [(lambda x: C.add(C.sign(x), x), [away(3)])],
    "floor": [(lambda x: C.add(C.floor(x), x), [np.array([0.3, 1.4, -0.6])])],
    "ceil": [(lambda x: C.add(C.ceil(x), x), [np.array([0.3, 1.4, -0.6])])],
    "round": [(lambda x: C.add(C.round(x), x), [np.array([0.3, 1.4, -0.8])])],
    "cast": [(lambda x: C.cast(C.cast(x, np.longdouble), np.float64), [arr(3)])],
    "copy": [(C.copy, [arr(3)])],
    "sum": [
        (lambda x: C.sum(x, 1), [arr(2, 3)]),
        (lambda x: C.sum(x, (0, 2), True), [arr(2, 3, 2)]),
    ],
    "mean": [(lambda x: C.mean(x, 0), [arr(2, 3)]), (C.mean, [arr(2, 3)])],
    "max": [
        (lambda x: C.max(x, 1), [R.permutation(6).reshape(2, 3) / 6.0]),
        (C.max, [arr(4)]),
    ],
    "min": [(lambda x: C.min(x, 0, True), [R.permutation(6).reshape(2, 3) / 6.0])],
    "matmul": [
        (C.matmul, [arr(2, 3), arr(3, 4)]),
        (C.matmul, [arr(2, 2, 3), arr(3, 2)]),
        (C.matmul, [arr(3), arr(2, 3, 2)]),
        (C.matmul, [arr(2, 3), arr(3)]),
        (C.matmul, [arr(3), arr(3)]),
    ],
    "linear": [
        (C.linear, [arr(2, 3), arr(4, 3), arr(4)]),
        (lambda x, w: C.linear(x, w), [arr(2, 2, 3), arr(4, 3)]),
    ],
    "reshape": [(lambda x: C.reshape(x, (3, 2)), [arr(2, 3)])],
    "transpose": [(lambda x: C.transpose(x, (2, 0, 1)), [arr(2, 3, 4)])],
    "squeeze": [(lambda x: C.squeeze(x, 1), [arr(2, 1, 3)])],
    "unsqueeze": [(lambda x: C.unsqueeze(x, -1), [arr(2, 3)])],
    "sum_to": [(lambda x: C.sum_to(x, (1, 3)), [arr(2, 4, 3)])],
    "broadcast_to": [(lambda x: C.broadcast_to(x, (2, 3)), [arr(1, 3)])],
    "concat": [(lambda a, b: C.concat([a, b], 1), [arr(2, 1), arr(2, 3)])],
    "stack": [(lambda a, b: C.stack([a, b], -1), [arr(2, 3), arr(2, 3)])],
    "getitem": [
        (lambda x: C.getitem(x, (slice(None), 1)), [arr(2, 3)]),
        (lambda x: C.getitem(x, np.array([0, 2, 0])), [arr(3, 2)]),
    ],
    "index_add": [(lambda g: C.index_add(g, (3, 2), np.array([0, 2, 0])), [arr(3, 2)])],
    "gather": [(lambda x: C.gather(x, 1, IDX), [arr(2, 4)])],
    "scatter_add": [(lambda g: C.scatter_add(g, (2, 4), 1, IDX), [arr(2, 3)])],
    "pad": [(lambda x: C.pad(x, ((1, 0), (0, 2)), 1.5), [arr(2, 3)])],
    "softmax": [(lambda x: C.softmax(x, 1), [arr(2, 4)])],
    "log_softmax": [(lambda x: C.log_softmax(x, 0), [arr(3, 2)])],
    "softmax_cross_entropy": [
        (lambda x: C.softmax_cross_entropy(x, np.array([1, 0, 1])), [arr(3, 2)])
    ],
    "im2col": [(lambda x: C.im2col(x, K33, (2, 1), (1, 0, 1, 1), (1, 1)), [HW])],
    "col2im": [
        (
            lambda c: C.col2im(c, (1, 2, 5, 5), K33, (2, 1), (1, 0, 1, 1), (1, 1)),
            [arr(1, 18, 10)],
        )
    ],
}
NON_DIFFERENTIABLE = {
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "logical_and",
    "logical_or",
    "logical_not",
    "argmax",
    "argmin",
}

TARGET = np.array([1, 0, 2])
W4 = positive(4)
COMPOSITES = {
    "gelu": (C.gelu, [arr(5) * 2]),
    "gelu_tanh": (lambda x: C.gelu(x, "tanh"), [arr(5) * 2]),
    "conv2d": (
        lambda x, w, b: C.conv2d(x, w, b, 1, 1),
        [arr(1, 2, 4, 4), arr(3, 2, 3, 3), arr(3)],
    ),
    "conv2d_groups": (
        lambda x, w: C.conv2d(x, w, None, 2, 0, 1, 2),
        [arr(1, 4, 5, 5), arr(2, 2, 2, 2)],
    ),
    "max_pool2d": (
        lambda x: C.max_pool2d(x, 2),
        [R.permutation(32).reshape(1, 2, 4, 4) / 32.0],
    ),
    "avg_pool2d": (
        lambda x: C.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
        [arr(1, 1, 5, 5)],
    ),
    "batch_norm": (
        lambda x, w, b: C.batch_norm(x, None, None, w, b, True),
        [arr(4, 3), positive(3), arr(3)],
    ),
    "layer_norm": (
        lambda x, w, b: C.layer_norm(x, 3, w, b),
        [arr(2, 3), positive(3), arr(3)],
    ),
    "cross_entropy": (lambda x: C.cross_entropy(x, TARGET), [arr(3, 4)]),
    "cross_entropy_smooth": (
        lambda x: C.cross_entropy(x, TARGET, label_smoothing=0.2, weight=W4),
        [arr(3, 4)],
    ),
    "nll_loss": (lambda x: C.nll_loss(x, np.array([1, -100, 2])), [arr(3, 4)]),
    "mse_loss": (C.mse_loss, [arr(3), arr(3)]),
    "smooth_l1_loss": (
        lambda x, y: C.smooth_l1_loss(x, y, beta=0.5),
        [np.array([0.1, 1.0, -2.0]), np.zeros(3)],
    ),
    "binary_cross_entropy": (
        lambda p: C.binary_cross_entropy(p, np.array([0.0, 1.0, 0.3])),
        [R.uniform(0.2, 0.8, 3)],
    ),
    "bce_with_logits": (
        lambda x: C.binary_cross_entropy_with_logits(
            x, np.array([0.0, 1.0, 0.3]), pos_weight=np.array(2.0)
        ),
        [arr(3) * 3],
    ),
    "logsumexp": (lambda x: C.logsumexp(x, 1), [arr(2, 3)]),
    "var": (lambda x: C.var(x, 0), [arr(4, 2)]),
}


def _numeric(f, arrays, eps=1e-6):
    grads = []
    for i, a in enumerate(arrays):
        g = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            plus = [b.copy() for b in arrays]
            minus = [b.copy() for b in arrays]
            plus[i][idx] += eps
            minus[i][idx] -= eps
            g[idx] = (f(plus) - f(minus)) / (2 * eps)
        grads.append(g)
    return grads


def _projection(fn, out_shape):
    v = np.random.default_rng(7).standard_normal(out_shape)

    def scalar(tensors):
        return C.sum(C.mul(fn(*tensors), v))

    return scalar


def _leaves(arrays):
    return [C.Tensor(np.array(a, dtype=np.float64), requires_grad=True) for a in arrays]


def check_first_and_second(fn, arrays):
    out = fn(*_leaves(arrays))
    scalar = _projection(fn, out.shape)

    def value(arrs):
        return float(scalar([C.Tensor(a) for a in arrs])._data)

    leaves = _leaves(arrays)
    analytic = C.grad(scalar(leaves), leaves, allow_unused=True)
    analytic = [
        np.zeros_like(a) if g is None else g._data for a, g in zip(arrays, analytic)
    ]
    for a, n in zip(analytic, _numeric(value, arrays)):
        assert a.dtype == np.float64
        np.testing.assert_allclose(a, n, rtol=1e-5, atol=1e-6)

    u = [np.random.default_rng(11).standard_normal(a.shape) for a in arrays]

    def first_order(tensors):
        gs = C.grad(scalar(tensors), tensors, create_graph=True, allow_unused=True)
        total = C.Tensor(np.zeros((), np.float64))
        for g, w in zip(gs, u):
            if g is not None:
                total = C.add(total, C.sum(C.mul(g, w)))
        return total

    def first_value(arrs):
        return float(first_order([C.Tensor(a, requires_grad=True) for a in arrs])._data)

    leaves = _leaves(arrays)
    total = first_order(leaves)
    if total.requires_grad:
        second = C.grad(total, leaves, allow_unused=True)
        second = [
            np.zeros_like(a) if g is None else g._data for a, g in zip(arrays, second)
        ]
    else:
        second = [np.zeros_like(a) for a in arrays]
    for a, n in zip(second, _numeric(first_value, arrays)):
        np.testing.assert_allclose(a, n, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(C.PRIMITIVES))
def test_primitive_vjp(name):
    prim = C.PRIMITIVES[name]
    if name in NON_DIFFERENTIABLE:
        assert not prim.differentiable
        return
    assert name in CASES, f"primitive {name!r} has no gradient check"
    for fn, arrays in CASES[name]:
        check_first_and_second(fn, arrays)


@pytest.mark.parametrize("name", sorted(COMPOSITES))
def test_composite_vjp(name):
    fn, arrays = COMPOSITES[name]
    check_first_and_second(fn, arrays)


def test_freed_graph_raises():
    x = C.Tensor(np.array(2.0), requires_grad=True)
    y = C.mul(x, x)
    C.grad(y, [x])
    with pytest.raises(
        RuntimeError, match="Trying to backward through the graph a second time"
    ):
        C.grad(y, [x])


def test_unused_input():
    x = C.Tensor(np.array(2.0), requires_grad=True)
    z = C.Tensor(np.array(1.0), requires_grad=True)
    y = C.mul(x, 3.0)
    with pytest.raises(RuntimeError, match="appears to not have been used"):
        C.grad(y, [x, z], retain_graph=True)
    assert C.grad(y, [x, z], allow_unused=True)[1] is None


def test_grad_mode_stops_recording():
    x = C.Tensor(np.ones(3), requires_grad=True)
    with C.grad_mode(False):
        y = C.mul(x, 2.0)
    assert not y.requires_grad and y._ctx is None
    assert C.is_grad_enabled()


def test_float32_is_kept():
    x = C.Tensor(np.ones(3, np.float32), requires_grad=True)
    y = C.sum(C.div(C.exp(C.mul(x, 2.5)), 3))
    assert y._data.dtype == np.float32
    assert C.grad(y, [x])[0]._data.dtype == np.float32
    assert C.div(C.Tensor(np.array([1, 2])), 2)._data.dtype == np.float32


def test_shared_seed_repeats():
    C.manual_seed(3)
    a = C.init_linear(4, 3)
    C.manual_seed(3)
    b = C.init_linear(4, 3)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert a[0].dtype == np.float32 and np.abs(a[0]).max() <= 1 / np.sqrt(3)
