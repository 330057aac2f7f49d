"""torch's optimizer and scheduler state layout for MindSpore's torch-style optimizers
(rules/companion/library/optim_state.py), against real torch: a state torch wrote resumes the
MindSpore optimizer where torch's continues, and the state the companion writes loads into torch's
optimizer and continues the same there."""

from __future__ import annotations

import importlib.util
import io

import numpy as np
import pytest
from torch2ms.rules.companion import assemble

pytestmark = pytest.mark.real

ENTRIES = ["save", "load", "state_dict", "load_state_dict"]

OPTIMIZERS = [
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.1}),
    ("Adam", {"lr": 0.05}),
    ("AdamW", {"lr": 0.05, "weight_decay": 0.1}),
    ("Adagrad", {"lr": 0.1}),
    ("Adamax", {"lr": 0.05}),
    ("NAdam", {"lr": 0.05}),
    ("RAdam", {"lr": 0.05}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.5, "centered": True}),
    ("Rprop", {"lr": 0.01}),
    ("Adadelta", {"lr": 1.0}),
    ("ASGD", {"lr": 0.05}),
]


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    path = tmp_path_factory.mktemp("companion") / "ms_aux_optim_state.py"
    path.write_text(assemble(ENTRIES), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_optim_state", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_RNG = np.random.default_rng(5)
_START = [_RNG.standard_normal(s).astype(np.float32) for s in ((2, 3), (3,))]
_GRADS = [
    [_RNG.standard_normal(a.shape).astype(np.float32) for a in _START] for _ in range(5)
]


def _torch_pair(torch, name, kwargs):
    params = [torch.nn.Parameter(torch.tensor(a)) for a in _START]
    groups = [{"params": [params[0]]}, {"params": [params[1]], "lr": kwargs["lr"] / 2}]
    return params, getattr(torch.optim, name)(groups, **kwargs)


def _ms_pair(ms, name, kwargs):
    from mindspore.experimental import optim

    params = [
        ms.Parameter(ms.Tensor(a), name=f"p{i}_{name}") for i, a in enumerate(_START)
    ]
    groups = [{"params": [params[0]]}, {"params": [params[1]], "lr": kwargs["lr"] / 2}]
    return params, getattr(optim, name)(groups, **kwargs)


def _torch_steps(torch, params, optimizer, grads):
    for step in grads:
        for p, g in zip(params, step):
            p.grad = torch.tensor(g)
        optimizer.step()


def _ms_steps(ms, optimizer, grads):
    for step in grads:
        optimizer(tuple(ms.Tensor(g) for g in step))


@pytest.mark.parametrize(("name", "kwargs"), OPTIMIZERS)
def test_a_state_torch_wrote_resumes_the_mindspore_optimizer(
    fw, aux, name, kwargs
) -> None:
    torch, ms = fw
    tparams, topt = _torch_pair(torch, name, kwargs)
    _torch_steps(torch, tparams, topt, _GRADS[:3])
    data = io.BytesIO()
    torch.save(topt.state_dict(), data)
    data.seek(0)
    mparams, mopt = _ms_pair(ms, name, kwargs)
    for p, t in zip(mparams, tparams):
        p.set_data(ms.Tensor(t.detach().numpy()))
    aux.load_state_dict(mopt, aux.load(data))
    _torch_steps(torch, tparams, topt, _GRADS[3:])
    _ms_steps(ms, mopt, _GRADS[3:])
    for p, t in zip(mparams, tparams):
        np.testing.assert_allclose(
            p.asnumpy(), t.detach().numpy(), rtol=1e-5, atol=1e-6
        )


@pytest.mark.parametrize(("name", "kwargs"), OPTIMIZERS)
def test_the_state_written_has_torchs_layout_and_resumes_torchs_optimizer(
    fw, aux, name, kwargs
) -> None:
    torch, ms = fw
    tparams, topt = _torch_pair(torch, name, kwargs)
    _, mopt = _ms_pair(ms, name, kwargs)
    assert aux.state_dict(mopt)["state"].keys() == topt.state_dict()["state"].keys()
    _torch_steps(torch, tparams, topt, _GRADS[:3])
    _ms_steps(ms, mopt, _GRADS[:3])
    written, expected = aux.state_dict(mopt), topt.state_dict()
    assert written["state"].keys() == expected["state"].keys()
    for index, entry in expected["state"].items():
        counted = set(entry) - ({"step"} if name in ("RMSprop", "Adadelta") else set())
        assert set(written["state"][index]) == counted
    for group, saved in zip(expected["param_groups"], written["param_groups"]):
        assert saved["params"] == group["params"]
        assert "lr" in saved
        for key, value in saved.items():
            if key != "params" and key in group:  # MindSpore's own options ride along
                assert value == pytest.approx(group[key]), key
    # The state written, read by torch, continues torch's run.
    data = io.BytesIO()
    aux.save(written, data)
    data.seek(0)
    reread = aux.load(data)
    state = {
        "state": {
            i: {k: torch.tensor(v.asnumpy()) for k, v in entry.items()}
            for i, entry in reread["state"].items()
        },
        "param_groups": reread["param_groups"],
    }
    fresh_params, fresh = _torch_pair(torch, name, kwargs)
    with torch.no_grad():
        for p, t in zip(fresh_params, tparams):
            p.copy_(t)
    if name in ("RMSprop", "Adadelta"):
        for entry in state["state"].values():
            entry["step"] = torch.tensor(3.0)
    fresh.load_state_dict(state)
    _torch_steps(torch, tparams, topt, _GRADS[3:])
    _torch_steps(torch, fresh_params, fresh, _GRADS[3:])
    for p, t in zip(fresh_params, tparams):
        np.testing.assert_allclose(
            p.detach().numpy(), t.detach().numpy(), rtol=1e-5, atol=1e-6
        )


def test_a_scheduler_resumes_its_epoch_and_the_optimizer_its_rate(fw, aux) -> None:
    torch, ms = fw
    from mindspore.experimental import optim

    _, topt = _torch_pair(torch, "SGD", {"lr": 0.1})
    tsched = torch.optim.lr_scheduler.StepLR(topt, step_size=2, gamma=0.5)
    mparams, mopt = _ms_pair(ms, "SGD", {"lr": 0.1})
    msched = optim.lr_scheduler.StepLR(mopt, step_size=2, gamma=0.5)
    for _ in range(3):
        topt.step()
        tsched.step()
        mopt(tuple(ms.ops.zeros_like(p) for p in mparams))
        msched.step()
    saved = aux.state_dict(msched)
    expected = tsched.state_dict()
    for key in ("last_epoch", "base_lrs", "_last_lr", "step_size", "gamma"):
        assert saved[key] == pytest.approx(expected[key]), key
    state = {"optimizer": aux.state_dict(mopt), "scheduler": saved}
    _, resumed = _ms_pair(ms, "SGD", {"lr": 0.1})
    resumed_sched = optim.lr_scheduler.StepLR(resumed, step_size=2, gamma=0.5)
    aux.load_state_dict(resumed, state["optimizer"])
    aux.load_state_dict(resumed_sched, state["scheduler"])
    rates = []
    for _ in range(3):
        tsched.step()
        resumed_sched.step()
        rates.append(
            ([g["lr"] for g in topt.param_groups], resumed_sched.get_last_lr())
        )
    for torch_rates, ms_rates in rates:
        assert [float(r) for r in ms_rates] == pytest.approx(torch_rates)
