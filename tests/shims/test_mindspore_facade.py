"""Behaviour of the mindspore facade that needs no real framework."""

from __future__ import annotations

import numpy as np
import pytest
import torch2ms.shims.mindspore as ms
from torch2ms.shims.mindspore import nn, ops

X = np.array([0.5, -1.5, 2.0], np.float32)


def test_higher_order_grads_match_the_analytic_derivatives():
    def cube(a):
        return (a**3).sum()

    x = ms.Tensor(X)
    np.testing.assert_allclose(ms.grad(cube)(x).asnumpy(), 3 * X**2, rtol=1e-6)
    np.testing.assert_allclose(ms.grad(ms.grad(cube))(x).asnumpy(), 6 * X, rtol=1e-6)
    np.testing.assert_allclose(
        ms.grad(ms.grad(ms.grad(cube)))(x).asnumpy(), np.full(3, 6.0), rtol=1e-6
    )


def test_results_carry_no_graph_outside_differentiation():
    net = nn.Dense(3, 2)
    x = ms.Tensor(X[None])
    assert net(x)._ctx is None
    (value, aux), grads = ms.value_and_grad(
        lambda t: (net(t).sum(), net(t)), 0, net.trainable_params(), has_aux=True
    )(x)
    assert (
        value._ctx is None
        and aux._ctx is None
        and all(g._ctx is None for g in grads[1])
    )


def test_operations_on_parameters_give_tensors():
    param = ms.Parameter(ms.Tensor(X), name="w")
    assert type(param * 2) is ms.Tensor
    assert type(ops.relu(param)) is ms.Tensor
    assert type(param.data) is ms.Tensor
    assert param.data.asnumpy().tolist() == X.tolist()
    param.set_data(ms.Tensor(X * 2))
    np.testing.assert_array_equal(param.asnumpy(), X * 2)


def test_grads_are_values_not_state():
    w = ms.Parameter(ms.Tensor(X), name="w")
    grad_fn = ms.grad(lambda x: (x * w).sum(), None, [w])
    first = grad_fn(ms.Tensor(np.ones(3, np.float32)))
    second = grad_fn(ms.Tensor(np.ones(3, np.float32)))
    np.testing.assert_array_equal(first[0].asnumpy(), second[0].asnumpy())


def test_a_custom_train_cell_with_grad_operation_matches_train_one_step_cell():
    class MyTrainOneStepCell(nn.Cell):
        def __init__(self, network, optimizer):
            super().__init__(auto_prefix=False)
            self.network = network
            self.network.set_grad()
            self.optimizer = optimizer
            self.weights = self.optimizer.parameters
            self.grad = ops.GradOperation(get_by_list=True)

        def construct(self, *inputs):
            loss = self.network(*inputs)
            grads = self.grad(self.network, self.weights)(*inputs)
            grads = ops.clip_by_global_norm(grads, 10.0)
            self.optimizer(grads)
            return loss

    results = []
    for make in (MyTrainOneStepCell, nn.TrainOneStepCell):
        ms.set_seed(3)
        net = nn.WithLossCell(nn.Dense(3, 2), nn.MSELoss())
        step = make(net, nn.SGD(net.trainable_params(), 0.1, momentum=0.9))
        data, label = (
            ms.Tensor(np.ones((4, 3), np.float32)),
            ms.Tensor(np.zeros((4, 2), np.float32)),
        )
        losses = [float(step(data, label).asnumpy()) for _ in range(3)]
        results.append((losses, [p.asnumpy() for p in net.trainable_params()]))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    for a, b in zip(results[0][1], results[1][1]):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_cells_record_inside_grad_only():
    net = nn.Dense(3, 1)
    assert net(ms.Tensor(X[None]))._ctx is None
    seen = []

    def forward(x):
        out = net(x)
        seen.append(out._ctx is not None)
        return out.sum()

    ms.grad(forward)(ms.Tensor(X[None]))
    assert seen == [True]


def test_unimplemented_apis_raise():
    with pytest.raises(
        NotImplementedError,
        match=r"shims: mindspore\.ops\.nonexistent_op is not implemented",
    ):
        ops.nonexistent_op  # noqa: B018
    with pytest.raises(NotImplementedError, match="use_amsgrad"):
        nn.Adam([ms.Parameter(ms.Tensor(X), name="w")], use_amsgrad=True)
    with pytest.raises(NotImplementedError, match="mixed precision"):
        nn.Dense(2, 2).to_float(ms.float16)
    with pytest.raises(NotImplementedError, match=r"ops\.norm"):
        ops.norm(ms.Tensor(X), ord=1)


def test_dataset_shuffle_follows_the_seed():
    data = [np.float32(i) for i in range(10)]

    def order():
        ms.set_seed(11)
        return [
            float(x[0].asnumpy())
            for x in ms.dataset.GeneratorDataset(data, ["x"], shuffle=True)
        ]

    assert order() == order()
    assert sorted(order()) == list(range(10))


def test_checkpoint_round_trip(tmp_path):
    net = nn.SequentialCell([nn.Dense(3, 4), nn.BatchNorm1d(4)])
    path = str(tmp_path / "net.ckpt")
    ms.save_checkpoint(net, path)
    other = nn.SequentialCell([nn.Dense(3, 4), nn.BatchNorm1d(4)])
    not_loaded, unused = ms.load_param_into_net(other, ms.load_checkpoint(path))
    assert (not_loaded, unused) == ([], [])
    for a, b in zip(net.get_parameters(), other.get_parameters()):
        assert a.name == b.name
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_exponent_digits_follow_the_environment(monkeypatch):
    t = ms.Tensor(np.array([[4.0, -6.0]], np.float32))
    assert repr(t).endswith("[[ 4.00000000e+00, -6.00000000e+00]])")
    monkeypatch.setenv("TORCH2MS_MS_EXPONENT_DIGITS", "3")
    assert repr(t).endswith("[[4.00000000e+000, -6.00000000e+000]])")


def test_detached_parameters_are_tensors():
    param = ms.Parameter(ms.Tensor(X), name="w")
    for value in (
        ops.stop_gradient(param),
        param.isnan(),
        param.all(),
        param // 2,
        ops.isfinite(param),
    ):
        assert type(value) is ms.Tensor
