"""The companion optimizer entries (rules/companion/library/optim.py) against real torch.

The entries come from an assembled companion module, as a converted tree gets it: the foreach
ops update MindSpore tensors and Parameters in place as torch's update torch tensors; the
`Optimizer` base keeps torch's groups, state and state_dict; the optimizer classes passed as values
take torch's switches."""

from __future__ import annotations

import importlib
import importlib.util

import numpy as np
import pytest
from torch2ms.rules.companion import assemble
from torch2ms.rules.companion.table_optim import ENTRIES

pytestmark = pytest.mark.real

RTOL, ATOL = 1e-5, 1e-6
SHAPES = ((3, 4), (5,), ())


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    folder = tmp_path_factory.mktemp("companion")
    path = folder / "ms_aux_optim.py"
    path.write_text(assemble(sorted(set(ENTRIES.values()))), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_optim", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _lists(fw, count: int, seed: int, positive: bool = False):
    torch, ms = fw
    rng = np.random.default_rng(seed)
    arrays = [
        [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
        for _ in range(count)
    ]
    if positive:
        arrays = [[np.abs(a) + 0.5 for a in group] for group in arrays]
    as_torch = [[torch.tensor(a) for a in group] for group in arrays]
    # the first list holds Parameters (what optimizers update), the others plain tensors
    as_ms = [
        [
            ms.Parameter(ms.Tensor(a), name=f"p{i}") if k == 0 else ms.Tensor(a)
            for i, a in enumerate(group)
        ]
        for k, group in enumerate(arrays)
    ]
    return as_torch, as_ms


def _same(ms_list, torch_list) -> None:
    assert len(ms_list) == len(torch_list)
    for got, want in zip(ms_list, torch_list):
        np.testing.assert_allclose(got.asnumpy(), want.numpy(), rtol=RTOL, atol=ATOL)


INPLACE = [
    ("add_", 2, {"alpha": -0.3}),
    ("sub_", 2, {"alpha": 2.0}),
    ("mul_", 2, {}),
    ("div_", 2, {}),
    ("addcmul_", 3, {"value": 0.25}),
    ("addcdiv_", 3, {"value": -0.5}),
    ("lerp_", 2, {"weight": 0.1}),
    ("lerp_", 2, {"weight": 0.9}),
    ("maximum_", 2, {}),
    ("minimum_", 2, {}),
    ("copy_", 2, {}),
]


@pytest.mark.parametrize(("op", "lists", "kwargs"), INPLACE)
def test_inplace_foreach_updates_each_tensor(fw, aux, op, lists, kwargs) -> None:
    torch, _ = fw
    as_torch, as_ms = _lists(fw, lists, seed=len(op) + lists, positive=op == "addcdiv_")
    kept = list(as_ms[0])
    if "weight" in kwargs:
        getattr(torch, "_foreach_" + op)(*as_torch, kwargs["weight"])
        getattr(aux, "foreach_" + op)(*as_ms, kwargs["weight"])
    else:
        getattr(torch, "_foreach_" + op)(*as_torch, **kwargs)
        getattr(aux, "foreach_" + op)(*as_ms, **kwargs)
    assert all(a is b for a, b in zip(kept, as_ms[0]))
    _same(as_ms[0], as_torch[0])


@pytest.mark.parametrize("op", ["add_", "mul_", "div_"])
def test_inplace_foreach_takes_numbers_tensors_and_lists_of_them(fw, aux, op) -> None:
    torch, ms = fw
    for other in (0.75, "tensor", "scalars", "zero_d"):
        as_torch, as_ms = _lists(fw, 1, seed=3)
        if other == "tensor":
            t_other, m_other = torch.tensor(1.5), ms.Tensor(np.float32(1.5))
        elif other == "scalars":
            t_other = m_other = [0.5, 2.0, -1.0]
        elif other == "zero_d":
            t_other = [torch.tensor(v) for v in (0.5, 2.0, -1.0)]
            m_other = [ms.Tensor(np.float32(v)) for v in (0.5, 2.0, -1.0)]
        else:
            t_other = m_other = other
        getattr(torch, "_foreach_" + op)(as_torch[0], t_other)
        getattr(aux, "foreach_" + op)(as_ms[0], m_other)
        _same(as_ms[0], as_torch[0])


@pytest.mark.parametrize(
    ("op", "lists", "args"),
    [
        ("add", 2, ()),
        ("mul", 1, (0.3,)),
        ("div", 2, ()),
        ("sub", 2, ()),
        ("addcdiv", 3, ()),
        ("lerp", 2, (0.3,)),
        ("maximum", 1, (0.1,)),
        ("pow", 1, (2.0,)),
        ("sqrt", 1, ()),
        ("neg", 1, ()),
        ("sign", 1, ()),
        ("norm", 1, ()),
        ("norm", 1, (1,)),
        ("norm", 1, (float("inf"),)),
    ],
)
def test_out_of_place_foreach_leaves_its_inputs(fw, aux, op, lists, args) -> None:
    torch, _ = fw
    positive = op in ("sqrt", "pow", "addcdiv", "div")
    as_torch, as_ms = _lists(fw, lists, seed=7, positive=positive)
    before = [t.asnumpy().copy() for t in as_ms[0]]
    want = getattr(torch, "_foreach_" + op)(*as_torch, *args)
    got = getattr(aux, "foreach_" + op)(*as_ms, *args)
    _same(got, want)
    for tensor, kept in zip(as_ms[0], before):
        np.testing.assert_array_equal(tensor.asnumpy(), kept)


def test_zero_and_overloads(fw, aux) -> None:
    torch, _ = fw
    as_torch, as_ms = _lists(fw, 1, seed=9)
    torch._foreach_zero_(as_torch[0])
    aux.foreach_zero_(as_ms[0])
    _same(as_ms[0], as_torch[0])
    for op in ("_foreach_add_", "_foreach_maximum_", "_foreach_div"):
        supported = getattr(torch.ops.aten, op).overloads()
        assert "Scalar" in supported and "Scalar" in aux.foreach_overloads()


def _momentum_class(base, zeros_like, assign):
    """One SGD with momentum written against the optimizer API, on either framework's base."""

    class Momentum(base):
        def __init__(self, params, lr, momentum=0.9):
            super().__init__(params, {"lr": lr, "momentum": momentum})

        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if "buf" not in state:
                        state["buf"] = zeros_like(p)
                    assign(state["buf"], state["buf"] * group["momentum"] + p.grad)
                    assign(p, p - group["lr"] * state["buf"])

    return Momentum


def test_optimizer_base_groups_state_and_call(fw, aux) -> None:
    torch, ms = fw
    rng = np.random.default_rng(5)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    grads = [
        [rng.standard_normal(s).astype(np.float32) for s in SHAPES] for _ in range(3)
    ]
    t_params = [torch.nn.Parameter(torch.tensor(a)) for a in arrays]
    m_params = [ms.Parameter(ms.Tensor(a), name=f"w{i}") for i, a in enumerate(arrays)]

    def t_assign(x, v):
        with torch.no_grad():
            x.copy_(v)

    TorchMomentum = _momentum_class(torch.optim.Optimizer, torch.zeros_like, t_assign)
    MsMomentum = _momentum_class(aux.Optimizer, ms.ops.zeros_like, ms.ops.assign)
    t_opt = TorchMomentum(
        [{"params": t_params[:2]}, {"params": t_params[2:], "lr": 0.5}], lr=0.1
    )
    m_opt = MsMomentum(
        [{"params": m_params[:2]}, {"params": m_params[2:], "lr": 0.5}], lr=0.1
    )
    assert m_opt.parameters == tuple(m_params)
    assert [g["lr"] for g in m_opt.param_groups] == [
        g["lr"] for g in t_opt.param_groups
    ]
    for step in grads:
        t_opt.zero_grad()
        for p, g in zip(t_params, step):
            p.grad = torch.tensor(g)
        t_opt.step()
        assert m_opt(tuple(ms.Tensor(g) for g in step)) is True
    _same(m_params, [p.detach() for p in t_params])
    t_state, m_state = t_opt.state_dict(), m_opt.state_dict()
    assert m_state["param_groups"] == t_state["param_groups"]
    assert sorted(m_state["state"]) == sorted(t_state["state"])
    for key in t_state["state"]:
        np.testing.assert_allclose(
            m_state["state"][key]["buf"].asnumpy(),
            t_state["state"][key]["buf"].numpy(),
            rtol=RTOL,
            atol=ATOL,
        )
    m_opt.zero_grad()
    assert all(p.grad is None for p in m_params)
    # a fresh optimizer loaded from the state dict continues from the same momentum
    fresh = MsMomentum([{"params": m_params[:2]}, {"params": m_params[2:]}], lr=0.1)
    fresh.load_state_dict(m_state)
    assert fresh.param_groups[1]["lr"] == 0.5
    assert fresh.state[m_params[0]]["buf"] is m_state["state"][0]["buf"]
    with pytest.raises(ValueError, match="more than one parameter group"):
        MsMomentum([{"params": m_params}, {"params": m_params[:1]}], lr=0.1)
    with pytest.raises(ValueError, match="required optimization parameter lr"):
        MsMomentum(m_params, lr=aux.required)
    with pytest.raises(ValueError, match="required optimization parameter lr"):
        TorchMomentum(
            t_params, lr=importlib.import_module("torch.optim.optimizer").required
        )


def test_plain_loop_is_chosen_and_nothing_captures(fw, aux) -> None:
    assert aux.default_to_fused_or_foreach(
        [], differentiable=False, use_fused=False
    ) == (False, False)
    assert aux.get_capturable_supported_devices() == []


@pytest.mark.parametrize("name", ["SGD", "AdamW", "Adam", "RMSprop"])
def test_optimizer_classes_as_values_take_torchs_switches(fw, aux, name) -> None:
    torch, ms = fw
    rng = np.random.default_rng(2)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in ((3, 4), (4,))]
    grads = [rng.standard_normal(a.shape).astype(np.float32) for a in arrays]
    t_params = [torch.nn.Parameter(torch.tensor(a)) for a in arrays]
    m_params = [ms.Parameter(ms.Tensor(a), name=f"v{i}") for i, a in enumerate(arrays)]
    kwargs = {"lr": 0.1, "weight_decay": 0.01, "foreach": False}
    t_opt = getattr(torch.optim, name)(t_params, **kwargs)
    m_opt = getattr(aux, name)(m_params, **kwargs)
    for _ in range(2):
        for p, g in zip(t_params, grads):
            p.grad = torch.tensor(g)
        t_opt.step()
        m_opt(tuple(ms.Tensor(g) for g in grads))
    _same(m_params, [p.detach() for p in t_params])


def test_tensors_grouped_by_dtype_as_torch_groups_them(fw, aux) -> None:
    torch, ms = fw
    dtypes = (np.float32, np.float64, np.float32)
    arrays = [np.ones((2,), dtype=d) * i for i, d in enumerate(dtypes)]
    t_lists = [[torch.tensor(a) for a in arrays], [torch.tensor(a + 1) for a in arrays]]
    m_lists = [[ms.Tensor(a) for a in arrays], [ms.Tensor(a + 1) for a in arrays]]
    want = torch.optim.Optimizer._group_tensors_by_device_and_dtype(
        t_lists, with_indices=True
    )
    got = aux.Optimizer._group_tensors_by_device_and_dtype(m_lists, with_indices=True)
    assert len(got) == len(want) == 2
    by_first_index = (
        sorted(want.values(), key=lambda g: g[1][0]),
        sorted(got.values(), key=lambda g: g[1][0]),
    )
    for (w_lists, w_indices), (g_lists, g_indices) in zip(*by_first_index):
        assert list(w_indices) == list(g_indices)
        for w_list, g_list in zip(w_lists, g_lists):
            _same(g_list, w_list)
