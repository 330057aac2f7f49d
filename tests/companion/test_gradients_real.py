"""The companion's run-time gradient clipping (rules/companion/library/gradients.py) against
timm's `dispatch_clip_grad` on real torch: the same gradients clipped in `.grad` by timm and as
values by `clip_grads`, for each mode, a subset of the parameters, and several norm types."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from torch2ms.rules.companion import assemble

pytestmark = pytest.mark.real

SHAPES = ((4, 3, 2, 2), (4,), (5, 4), ())


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    path = tmp_path_factory.mktemp("companion") / "ms_aux_gradients.py"
    path.write_text(assemble(["clip_grads"]), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_gradients", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _case(fw, seed: int, scale: float):
    torch, ms = fw
    rng = np.random.default_rng(seed)
    weights = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    grads = [(rng.standard_normal(s) * scale).astype(np.float32) for s in SHAPES]
    torch_params = []
    for w, g in zip(weights, grads):
        p = torch.nn.Parameter(torch.tensor(w))
        p.grad = torch.tensor(g)
        torch_params.append(p)
    ms_params = [
        ms.Parameter(ms.Tensor(w), name=f"w{i}") for i, w in enumerate(weights)
    ]
    return torch_params, ms_params, [ms.Tensor(g) for g in grads]


@pytest.mark.parametrize(
    "mode,value,norm_type",
    [
        ("norm", 0.5, 2.0),
        ("norm", 100.0, 2.0),
        ("norm", 0.5, 1.0),
        ("norm", 0.5, float("inf")),
        ("value", 0.3, 2.0),
        ("agc", 0.01, 2.0),
        ("agc", 0.05, 1.0),
    ],
)
@pytest.mark.parametrize("subset", [False, True])
def test_clip_grads_matches_timm_dispatch_clip_grad(
    fw, aux, mode, value, norm_type, subset
):
    from timm.utils.clip_grad import dispatch_clip_grad

    torch_params, ms_params, grads = _case(fw, seed=7, scale=3.0)
    chosen = [0, 2] if subset else list(range(len(SHAPES)))
    dispatch_clip_grad(
        [torch_params[i] for i in chosen], value, mode=mode, norm_type=norm_type
    )
    clip_parameters = [ms_params[i] for i in chosen] if subset else None
    got = aux.clip_grads(grads, ms_params, clip_parameters, value, mode, norm_type)
    assert len(got) == len(SHAPES)
    changed = 0
    for i, (g, p) in enumerate(zip(got, torch_params)):
        np.testing.assert_allclose(g.asnumpy(), p.grad.numpy(), rtol=1e-5, atol=1e-6)
        changed += not np.allclose(g.asnumpy(), grads[i].asnumpy())
    # the case clips something (the comparison is not between unchanged gradients), except the
    # large bound, which must leave every gradient as it was
    assert changed == (0 if value == 100.0 else len(chosen))


def test_clip_grads_rejects_an_unknown_mode(fw, aux):
    _, ms_params, grads = _case(fw, seed=1, scale=1.0)
    with pytest.raises(ValueError, match="Unknown clip mode"):
        aux.clip_grads(grads, ms_params, None, 1.0, "median")


def test_grad_holders_give_a_grad_reading_function_torchs_value(fw, tmp_path):
    """A gradient-norm function of the program, given `grad_holders(grads)`, computes on the
    gradient values what it computes on torch's `.grad` (its `.grad is None` filter included)."""
    torch, ms = fw
    path = tmp_path / "ms_aux_holders.py"
    path.write_text(assemble(["grad_holders"]), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_holders", path)
    holders = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(holders)

    def grad_norm(parameters, stack, norm):
        parameters = [p for p in parameters if p.grad is not None]
        return norm(stack([norm(p.grad) for p in parameters]))

    torch_params, _, ms_grads = _case(fw, 3, 1.0)
    expected = grad_norm(torch_params, torch.stack, torch.norm).item()
    got = grad_norm(
        holders.grad_holders(ms_grads), ms.ops.stack, ms.ops.norm
    ).asnumpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5)
