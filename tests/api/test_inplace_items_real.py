"""An in-place update of part of a tensor (`x[:, :n].add_(v)`) stores the new part back, and the
converted code computes what torch computes."""

from __future__ import annotations

import numpy as np
import pytest
from converted_import import import_converted
from torch2ms.migrator.context import Options
from torch2ms.migrator.convert import convert_source


def _converted(code: str, folder, name: str):
    return import_converted(code, ["assign_item"], folder, name)


SOURCE = (
    "import torch\n\n"
    "def load(holder, prefix, i, n):\n"
    "    with torch.no_grad():\n"
    "        holder.token[:, :n].add_(prefix[:, i:i + n])\n"
    "        holder.token[0, -1].mul_(3.0)\n"
    "        holder.scale[1:].clamp_(min=0.5)\n"
)


def test_the_part_is_stored_back_as_code() -> None:
    result = convert_source(SOURCE, "m.py", Options())
    assert (
        "ms_aux.assign_item(holder.token, (slice(None), slice(n)), "
        "holder.token[:, :n].add(prefix[:, i:i + n]))" in result.code
    )
    assert "torch" not in result.code
    assert not result.findings
    assert convert_source(result.code, "m.py", Options()).code == result.code


def test_a_part_used_as_a_value_is_reported() -> None:
    source = "import torch\n\ndef f(x):\n    y = x[0].mul_(2)\n    return y\n"
    result = convert_source(source, "m.py", Options())
    assert "x[0].mul_(2)" in result.code
    assert [f.rule for f in result.findings] == ["TM941"]


@pytest.mark.real
def test_the_converted_update_computes_torchs_values(fw, tmp_path) -> None:
    torch, ms = fw
    rng = np.random.default_rng(0)
    token = rng.standard_normal((2, 4, 3)).astype(np.float32)
    scale = rng.uniform(0.0, 1.0, 5).astype(np.float32)
    prefix = rng.standard_normal((2, 6, 3)).astype(np.float32)

    class Holder:
        pass

    expected = Holder()
    expected.token = torch.nn.Parameter(torch.tensor(token))
    expected.scale = torch.nn.Parameter(torch.tensor(scale))
    namespace: dict = {}
    exec(compile(SOURCE, "original.py", "exec"), namespace)  # noqa: S102 - our snippet
    namespace["load"](expected, torch.tensor(prefix), 1, 3)

    got = Holder()
    got.token = ms.Parameter(ms.Tensor(token), name="token")
    got.scale = ms.Parameter(ms.Tensor(scale), name="scale")
    code = convert_source(SOURCE, "m.py", Options()).code
    _converted(code, tmp_path, "converted_load").load(got, ms.Tensor(prefix), 1, 3)
    np.testing.assert_allclose(
        got.token.asnumpy(), expected.token.detach().numpy(), rtol=1e-6
    )
    np.testing.assert_allclose(
        got.scale.asnumpy(), expected.scale.detach().numpy(), rtol=1e-6
    )


INIT_SOURCE = (
    "import torch\n\n"
    "def init_weights(fc):\n"
    "    torch.nn.init.ones_(fc.bias[fc.bias.shape[0] // 2:])\n"
    "    torch.nn.init.zeros_(fc.weight[: fc.weight.shape[0] // 2])\n"
)


@pytest.mark.real
def test_part_of_a_parameter_initialised_like_torch(fw, tmp_path) -> None:
    torch, ms = fw
    rng = np.random.default_rng(1)
    weight = rng.standard_normal((4, 3)).astype(np.float32)
    bias = rng.standard_normal(4).astype(np.float32)
    module = torch.nn.Linear(3, 4)
    with torch.no_grad():
        module.weight.copy_(torch.tensor(weight))
        module.bias.copy_(torch.tensor(bias))
    namespace: dict = {}
    exec(compile(INIT_SOURCE, "original.py", "exec"), namespace)  # noqa: S102 - our snippet
    with torch.no_grad():
        namespace["init_weights"](module)
    result = convert_source(INIT_SOURCE, "m.py", Options())
    assert (
        "ms_aux.assign_item(fc.bias, slice(fc.bias.shape[0] // 2, None)" in result.code
    )
    assert not result.findings
    cell = ms.nn.Dense(3, 4)
    cell.weight.set_data(ms.Tensor(weight))
    cell.bias.set_data(ms.Tensor(bias))
    _converted(result.code, tmp_path, "converted_init").init_weights(cell)
    np.testing.assert_array_equal(cell.weight.asnumpy(), module.weight.detach().numpy())
    np.testing.assert_array_equal(cell.bias.asnumpy(), module.bias.detach().numpy())


@pytest.mark.real
def test_a_tensor_held_in_a_list_is_updated_in_place(fw, tmp_path) -> None:
    # An optimizer's per-parameter step counters: the list and the state dict hold one tensor.
    torch, ms = fw
    source = "import torch\n\ndef tick(steps, i):\n    steps[i].add_(1)\n"
    state = {"step": torch.tensor(0.0)}
    steps = [state["step"]]
    namespace: dict = {}
    exec(compile(source, "original.py", "exec"), namespace)  # noqa: S102 - our snippet
    namespace["tick"](steps, 0)
    code = convert_source(source, "m.py", Options()).code
    ms_state = {"step": ms.Tensor(np.float32(0.0))}
    ms_steps = [ms_state["step"]]
    _converted(code, tmp_path, "converted_tick").tick(ms_steps, 0)
    assert float(ms_state["step"].asnumpy()) == float(state["step"]) == 1.0


@pytest.mark.real
def test_a_result_written_into_its_input_updates_it(fw, tmp_path) -> None:
    torch, ms = fw
    source = (
        "import torch\n\n"
        "def blend(x, y, lam):\n"
        "    mixed = x * lam + y * (1 - lam)\n"
        "    torch.round(mixed, out=mixed)\n"
        "    flipped = x.flip(0).mul_(1.0 - lam)\n"
        "    return mixed, flipped\n"
    )
    result = convert_source(source, "m.py", Options())
    assert (
        "(mixed := ops.round(mixed))" in result.code
    )  # a fresh tensor: the name rebinds
    assert "torch" not in result.code and not result.findings
    rng = np.random.default_rng(2)
    x = rng.uniform(0, 255, (2, 3)).astype(np.float32)
    y = rng.uniform(0, 255, (2, 3)).astype(np.float32)
    namespace: dict = {}
    exec(compile(source, "original.py", "exec"), namespace)  # noqa: S102 - our snippet
    expected = namespace["blend"](torch.tensor(x), torch.tensor(y), 0.3)
    got = _converted(result.code, tmp_path, "converted_blend").blend(
        ms.Tensor(x), ms.Tensor(y), 0.3
    )
    for want, have in zip(expected, got):
        np.testing.assert_allclose(have.asnumpy(), want.numpy(), rtol=1e-6, atol=1e-4)
