"""Small forms that stop whole training scripts (corpus pair 442 runs them together): a CUDA
GradScaler on the CPU target whatever its `enabled`, `torch.randint(high, size)`, multinomial's
int64 indices, a ModuleDict that holds containers, a loss formatted after a scaled backward, and
`torch.manual_seed` seeding what converted code draws."""

from __future__ import annotations

import pytest
from conftest import convert_checked
from torch2ms.migrator.findings import ERROR


def _code(source: str, **options) -> str:
    result = convert_checked(source, **options)
    assert not [f for f in result.findings if f.severity == ERROR], result.findings
    return result.code


@pytest.mark.parametrize(
    "construction",
    [
        "torch.cuda.amp.GradScaler(enabled=(dtype == 'float16'))",
        "torch.amp.GradScaler('cuda', enabled=use_amp)",
        "torch.amp.GradScaler(enabled=False)",
    ],
)
def test_a_cuda_scaler_on_the_cpu_target_is_the_loss_scaler_whatever_enabled_says(
    construction,
) -> None:
    """torch disables a CUDA scaler where CUDA is absent; the converted scaler scales by powers
    of two and unscales, which is exact."""
    source = (
        "import torch\n"
        f"scaler = {construction}\n"
        "for x, y in loader:\n"
        "    loss = criterion(model(x), y)\n"
        "    scaler.scale(loss).backward()\n"
        "    scaler.step(optimizer)\n"
        "    scaler.update()\n"
        "    optimizer.zero_grad()\n"
        "    print(f'loss {loss:.4f}')\n"
    )
    code = _code(source)
    assert "amp.DynamicLossScaler(scale_value=2 ** 16" in code
    assert "enabled" not in code
    assert "print(f'loss {loss.item():.4f}')" in code


def test_a_cpu_scaler_that_may_be_disabled_stays_reported() -> None:
    result = convert_checked(
        "import torch\nscaler = torch.amp.GradScaler('cpu', enabled=use_amp)\n"
    )
    assert any(
        "may be disabled" in f.message for f in result.findings if f.rule == "TM204"
    )


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        ("torch.randint(10, (3,))", "ops.randint(0, 10, (3,))"),
        ("torch.randint(2, 10, (3,))", "ops.randint(2, 10, (3,))"),
        ("torch.randint(10, size=(3,))", "ops.randint(0, 10, size=(3,))"),
        (
            "torch.randint(low=1, high=4, size=(2,))",
            "ops.randint(1, 4, (2,))",
        ),
    ],
)
def test_randint_without_low_starts_at_zero(call, expected) -> None:
    assert f"x = {expected}" in _code(f"import torch\nx = {call}\n")


def test_multinomial_indices_are_int64_as_torchs() -> None:
    code = _code("import torch\ni = torch.multinomial(p, num_samples=1)\n")
    assert "i = ops.multinomial(p, num_samples=1).astype(mindspore.int64)" in code


def test_a_module_dict_holding_a_module_list_takes_the_companion_class() -> None:
    source = (
        "import torch.nn as nn\n\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.t = nn.ModuleDict(dict(h=nn.ModuleList([nn.Linear(2, 2)])))\n"
        "        self.u = nn.ModuleDict({'a': nn.Linear(2, 2)})\n"
    )
    code = _code(source)
    assert "self.t = ms_aux.ModuleDict(dict(h=nn.CellList([nn.Dense(2, 2)])))" in code
    assert "self.u = nn.CellDict({'a': nn.Dense(2, 2)})" in code


def test_manual_seed_seeds_what_converted_code_draws() -> None:
    assert "mindspore.set_seed(0)" in _code("import torch\ntorch.manual_seed(0)\n")


def test_a_module_found_by_traversal_lists_its_own_parameters() -> None:
    """`for m in model.modules(): for p in m.parameters(recurse=False)`: `m` is a Module as
    `model` is, so its parameters are a Cell's."""
    source = (
        "import torch.nn as nn\n\n"
        "def clamp_all(model: nn.Module):\n"
        "    model = nn.Sequential(model)\n"
        "    for m in model.modules():\n"
        "        for p in m.parameters(recurse=False):\n"
        "            p.data.clamp_(-1.0, 1.0)\n"
    )
    code = _code(source)
    assert "for p in m.trainable_params(recurse=False):" in code
