"""scripts/examples_backward_coverage.py counts rewritten, reported and silent backward() calls."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from torch2ms.migrator.context import Options
from torch2ms.migrator.convert import convert_source

SCRIPT = (
    Path(__file__).resolve().parents[2] / "scripts" / "examples_backward_coverage.py"
)


def _load():
    spec = importlib.util.spec_from_file_location("examples_backward_coverage", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_counts_rewritten_and_reported(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(
        "import torch\nfor x, y in loader:\n    optimizer.zero_grad()\n    loss = f(model(x), y)\n"
        "    loss.backward()\n    optimizer.step()\n"
    )
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "lbfgs.py").write_text(
        "import torch\ndef closure():\n    optimizer.zero_grad()\n    loss = f(model(x), y)\n"
        "    loss.backward()\n    return loss\noptimizer.step(closure)\n"
    )
    (tmp_path / "plain.py").write_text("x = 1\n")
    tally = _load().measure(str(tmp_path))
    assert tally.total == 2
    assert tally.rewritten == 1
    assert [(name, line) for name, line, _ in tally.reported] == [("sub/lbfgs.py", 5)]
    assert tally.silent == []


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (
            "torch.cuda.amp.GradScaler()",
            "amp.DynamicLossScaler(scale_value=2 ** 16, scale_factor=2, scale_window=2000)",
        ),
        (
            "torch.amp.GradScaler('cpu', 512.0, 4.0, 0.25, 10)",
            "amp.DynamicLossScaler(scale_value=512, scale_factor=4, scale_window=10)",
        ),
        (
            "torch.amp.GradScaler(growth_interval=n)",
            "amp.DynamicLossScaler(scale_value=2 ** 16, scale_factor=2, scale_window=n)",
        ),
    ],
)
def test_grad_scaler_construction(call: str, expected: str) -> None:
    code = convert_source(f"import torch\nscaler = {call}\n", "case.py", Options()).code
    assert f"scaler = {expected}\n" in code


@pytest.mark.parametrize(
    "call",
    [
        "torch.amp.GradScaler('cpu', enabled=use_amp)",
        "torch.amp.GradScaler(backoff_factor=0.25)",
        "torch.amp.GradScaler(growth_factor=1.5)",
    ],
)
def test_grad_scaler_left_with_a_finding(call: str) -> None:
    result = convert_source(f"import torch\nscaler = {call}\n", "case.py", Options())
    assert "GradScaler" in result.code
    assert any(f.rule == "TM204" and f.severity == "error" for f in result.findings)
