"""Same seed, same calls: the torch and mindspore facades draw the same numbers and parameters."""

from __future__ import annotations

import textwrap

from torch2ms.cli.run import run_script

TORCH_SCRIPT = """
import torch
import torch.nn.functional as F

torch.manual_seed(7)
print("randn", torch.randn(2, 3).numpy().tolist())
linear = torch.nn.Linear(4, 3)
print("dense.weight", linear.weight.detach().numpy().tolist())
print("dense.bias", linear.bias.detach().numpy().tolist())
conv = torch.nn.Conv2d(2, 3, 3)
print("conv.weight", conv.weight.detach().numpy().tolist())
print("conv.bias", conv.bias.detach().numpy().tolist())
print("rand", torch.rand(3).numpy().tolist())
print("dropout", F.dropout(torch.ones(8), p=0.5).numpy().tolist())
linear_no_bias = torch.nn.Linear(5, 2, bias=False)
print("dense2.weight", linear_no_bias.weight.detach().numpy().tolist())
"""

MINDSPORE_SCRIPT = """
import mindspore as ms
from mindspore import nn, ops

ms.set_seed(7)
print("randn", ops.randn(2, 3).asnumpy().tolist())
dense = nn.Dense(4, 3)
print("dense.weight", dense.weight.asnumpy().tolist())
print("dense.bias", dense.bias.asnumpy().tolist())
conv = nn.Conv2d(2, 3, 3, pad_mode="valid", has_bias=True)
print("conv.weight", conv.weight.asnumpy().tolist())
print("conv.bias", conv.bias.asnumpy().tolist())
print("rand", ops.rand(3).asnumpy().tolist())
print("dropout", ops.dropout(ops.ones(8), p=0.5).asnumpy().tolist())
dense_no_bias = nn.Dense(5, 2, has_bias=False)
print("dense2.weight", dense_no_bias.weight.asnumpy().tolist())
"""


def run(tmp_path, capsys, name: str, code: str) -> str:
    script = tmp_path / f"{name}.py"
    script.write_text(textwrap.dedent(code), encoding="utf-8")
    assert run_script(str(script), (), "shim") == 0
    return capsys.readouterr().out


def test_torch_and_mindspore_facades_draw_the_same_numbers(tmp_path, capsys):
    torch_out = run(tmp_path, capsys, "with_torch", TORCH_SCRIPT)
    ms_out = run(tmp_path, capsys, "with_mindspore", MINDSPORE_SCRIPT)
    assert len(ms_out.splitlines()) == 8
    assert ms_out == torch_out


def test_a_different_seed_draws_different_numbers(tmp_path, capsys):
    first = run(tmp_path, capsys, "seed7", MINDSPORE_SCRIPT)
    second = run(
        tmp_path,
        capsys,
        "seed8",
        MINDSPORE_SCRIPT.replace("ms.set_seed(7)", "ms.set_seed(8)"),
    )
    assert first != second
