"""Property tests over shapes and broadcasting: forwards equal NumPy, VJPs equal central differences."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from torch2ms.shims import core as C

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)
BINARY = [
    (C.add, np.add),
    (C.sub, np.subtract),
    (C.mul, np.multiply),
    (C.maximum, np.maximum),
]


def _values(shape):
    return hnp.arrays(
        np.float64, shape, elements=st.floats(-2, 2, allow_nan=False, width=64)
    )


@st.composite
def broadcastable_pair(draw):
    shapes = draw(
        hnp.mutually_broadcastable_shapes(
            num_shapes=2, min_dims=0, max_dims=3, max_side=3
        )
    )
    a_shape, b_shape = shapes.input_shapes
    return draw(_values(a_shape)), draw(_values(b_shape))


def _numeric_vjp(f, arrays, v, eps=1e-6):
    out = []
    for i, a in enumerate(arrays):
        g = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            plus = [b.copy() for b in arrays]
            minus = [b.copy() for b in arrays]
            plus[i][idx] += eps
            minus[i][idx] -= eps
            g[idx] = ((f(*plus) - f(*minus)) * v).sum() / (2 * eps)
        out.append(g)
    return out


@SETTINGS
@given(broadcastable_pair(), st.integers(0, len(BINARY) - 1))
def test_binary_broadcasting_forward_and_vjp(pair, which):
    a, b = pair
    op, ref = BINARY[which]
    if ref is np.maximum and np.any(np.abs(np.subtract(a, b)) < 1e-3):
        return  # ties split the gradient; central differences straddle the kink
    ta, tb = C.Tensor(a, requires_grad=True), C.Tensor(b, requires_grad=True)
    out = op(ta, tb)
    np.testing.assert_allclose(out._data, ref(a, b))
    v = np.random.default_rng(0).standard_normal(out.shape)
    ga, gb = C.grad(C.sum(C.mul(out, v)), [ta, tb])
    assert ga.shape == a.shape and gb.shape == b.shape
    na, nb = _numeric_vjp(ref, [a, b], v)
    np.testing.assert_allclose(ga._data, na, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gb._data, nb, rtol=1e-5, atol=1e-6)


@st.composite
def array_and_axis(draw):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, max_side=4))
    axis = draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1)))
    return draw(_values(shape)), axis, draw(st.booleans())


@SETTINGS
@given(array_and_axis())
def test_reductions_match_numpy_and_differentiate(case):
    x, axis, keepdims = case
    t = C.Tensor(x, requires_grad=True)
    for op, ref in ((C.sum, np.sum), (C.mean, np.mean)):
        out = op(t, axis, keepdims)
        np.testing.assert_allclose(out._data, ref(x, axis=axis, keepdims=keepdims))
        (g,) = C.grad(out, [t], grad_outputs=C.Tensor(np.ones(out.shape)))
        count = x.size if axis is None else x.shape[axis]
        np.testing.assert_allclose(
            g._data, np.full(x.shape, 1.0 if op is C.sum else 1.0 / count)
        )


@SETTINGS
@given(
    hnp.array_shapes(min_dims=1, max_dims=4, max_side=3),
    st.randoms(use_true_random=False),
)
def test_reshape_transpose_round_trip(shape, random):
    x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    axes = list(range(len(shape)))
    random.shuffle(axes)
    t = C.Tensor(x, requires_grad=True)
    out = C.reshape(C.transpose(t, axes), (-1,))
    np.testing.assert_array_equal(out._data, np.transpose(x, axes).reshape(-1))
    w = np.arange(out.shape[0], dtype=np.float64)
    (g,) = C.grad(C.sum(C.mul(out, w)), [t])
    np.testing.assert_array_equal(np.transpose(g._data, axes).reshape(-1), w)


@SETTINGS
@given(st.integers(1, 3), st.integers(1, 4), st.integers(1, 4), st.integers(0, 2))
def test_batched_matmul_vjp_shapes(batch, n, m, broadcast_side):
    r = np.random.default_rng(batch * 100 + n * 10 + m)
    a_shape = (batch, n, m) if broadcast_side != 1 else (n, m)
    b_shape = (batch, m, 2) if broadcast_side != 2 else (m, 2)
    a, b = r.standard_normal(a_shape), r.standard_normal(b_shape)
    ta, tb = C.Tensor(a, requires_grad=True), C.Tensor(b, requires_grad=True)
    out = C.matmul(ta, tb)
    v = r.standard_normal(out.shape)
    ga, gb = C.grad(C.sum(C.mul(out, v)), [ta, tb])
    na, nb = _numeric_vjp(np.matmul, [a, b], v)
    np.testing.assert_allclose(ga._data, na, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gb._data, nb, rtol=1e-5, atol=1e-6)


@SETTINGS
@given(_values((3, 4)), st.integers(-2, 1))
def test_softmax_rows_sum_to_one_and_grad_is_zero_for_sum(x, axis):
    t = C.Tensor(x, requires_grad=True)
    s = C.softmax(t, axis)
    np.testing.assert_allclose(s._data.sum(axis), 1.0)
    (g,) = C.grad(C.sum(s), [t])
    np.testing.assert_allclose(g._data, 0.0, atol=1e-12)
