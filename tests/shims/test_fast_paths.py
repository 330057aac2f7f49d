"""Edge cases of the training-step fast paths: leaf-only capture, grad accumulation, SGD's lr scalar."""

from __future__ import annotations

import numpy as np
import pytest
from torch2ms.shims import core as C
from torch2ms.shims import torch as shim

R = np.random.default_rng(7)


def _real_torch():
    return pytest.importorskip("torch")


def _grads_after(torch, backward: str) -> list:
    """Leaf and retained grads after two backward passes of a small graph (accumulation included)."""
    r = np.random.default_rng(3)
    w = torch.tensor(r.standard_normal((3, 2)).astype(np.float32), requires_grad=True)
    x = torch.tensor(r.standard_normal((4, 3)).astype(np.float32))
    out = []
    for step in range(2):
        h = torch.relu(x @ w)
        if step == 1:
            h.retain_grad()
        loss = (h * h).sum()
        if backward == "method":
            loss.backward()
        else:
            torch.autograd.backward(loss)
        out.append(w.grad.detach().numpy().copy())
        out.append(h.grad.detach().numpy().copy() if step == 1 else None)
    return out


@pytest.mark.real
@pytest.mark.parametrize("backward", ["method", "function"])
def test_leaf_and_retained_grads_match_torch(backward):
    torch = _real_torch()
    got = _grads_after(shim, backward)
    want = _grads_after(torch, backward)
    for g, w in zip(got, want):
        if w is None:
            assert g is None
        else:
            np.testing.assert_allclose(g, w, rtol=1e-6)


@pytest.mark.real
def test_backward_of_a_leaf_matches_torch():
    torch = _real_torch()
    grads = []
    for lib in (shim, torch):
        x = lib.tensor(2.5, requires_grad=True)
        x.backward()
        x.backward()
        grads.append(float(x.grad))
    assert grads[0] == grads[1]


@pytest.mark.real
def test_sgd_on_mixed_dtypes_matches_torch():
    torch = _real_torch()
    arrays = [
        R.standard_normal(3).astype(np.float32),
        R.standard_normal(3).astype(np.float64),
        R.standard_normal(2).astype(np.float32),
        R.standard_normal(2).astype(np.float64),
    ]
    grads = [R.standard_normal(a.shape).astype(a.dtype) for a in arrays]
    results = []
    for lib in (shim, torch):
        params = [lib.tensor(a.copy(), requires_grad=True) for a in arrays]
        opt = lib.optim.SGD(params, lr=0.1)
        for _ in range(2):
            for p, g in zip(params, grads):
                p.grad = lib.tensor(g.copy())
            opt.step()
        results.append([p.detach().numpy() for p in params])
    for got, want in zip(*results):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_fused_cross_entropy_takes_tensor_or_array_targets():
    logits = C.Tensor(R.standard_normal((5, 3)).astype(np.float32), requires_grad=True)
    target = np.array([0, 2, 1, 1, 0])
    by_array = C.softmax_cross_entropy(logits, target)
    by_tensor = C.softmax_cross_entropy(logits, C.Tensor(target))
    np.testing.assert_array_equal(by_array._data, by_tensor._data)
    (ga,) = C.grad(by_array, logits)
    (gt,) = C.grad(by_tensor, logits)
    np.testing.assert_array_equal(ga._data, gt._data)


def _relu_cases() -> list:
    special = np.array([-np.inf, -1.0, -0.0, 0.0, 2.0, np.inf, np.nan], np.float32)
    return [
        special,
        R.standard_normal((6, 4)).astype(np.float32).T,  # not contiguous
        R.standard_normal((3, 5)).astype(np.float64),
        # Larger than the zeros buffer so far: it grows.
        R.standard_normal((2, 3, 5)).astype(np.float32),
        np.array(-1.5, np.float32),
        np.array([-2, 0, 3], np.int64),
    ]


@pytest.mark.real
def test_relu_and_its_grad_match_torch_across_shapes_and_dtypes():
    """relu's forward runs against a shared zeros buffer and its backward against a float mask."""
    torch = _real_torch()
    for arr in _relu_cases():
        got = shim.relu(shim.tensor(arr))
        want = torch.relu(torch.tensor(arr))
        assert got.dtype == getattr(shim, str(want.dtype).split(".")[1])
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        if arr.dtype.kind != "f":
            continue
        # At NaN torch passes the gradient through (threshold_backward) and the engine does not.
        arr = np.nan_to_num(arr, nan=0.5, posinf=np.inf, neginf=-np.inf)
        grads = []
        for lib in (shim, torch):
            x = lib.tensor(arr, requires_grad=True)
            seed = lib.tensor(np.linspace(-1, 1, arr.size).reshape(arr.shape))
            (lib.relu(x) * seed.to(x.dtype)).sum().backward()
            grads.append(x.grad.numpy())
        np.testing.assert_array_equal(grads[0], grads[1])


def test_relu_leaves_its_zeros_buffer_untouched():
    """relu's output is a fresh array: writing to it must not reach later relu calls."""
    out = C.relu(C.Tensor(-np.ones((4, 4), np.float32)))
    out._data += 5
    again = C.relu(C.Tensor(-np.ones((2, 3), np.float32)))
    np.testing.assert_array_equal(again._data, np.zeros((2, 3), np.float32))
