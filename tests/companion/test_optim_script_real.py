"""Optimizers written against torch's optimizer API, converted and run on MindSpore with torch
absent: each trains a small model as the original does on torch (losses and parameters)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner
from torch2ms.cli.main import main

pytestmark = pytest.mark.real
SCRIPT = os.path.join(os.path.dirname(__file__), "script_custom_optimizers.py")
WITHOUT_TORCH = (
    "import runpy, sys\nsys.modules['torch'] = None\nsys.argv = sys.argv[1:]\n"
    "runpy.run_path(sys.argv[0], run_name='__main__')\n"
)


def _numbers(output: str) -> list[float]:
    return [float(n) for n in re.findall(r"-?\d+\.\d+e[-+]\d+", output)]


def _run(script: str, *prefix: str) -> str:
    result = subprocess.run(
        [sys.executable, *prefix, script],
        capture_output=True,
        check=False,
        text=True,
        timeout=300,
        cwd=os.path.dirname(script),
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def test_custom_optimizers_train_as_on_torch(fw, tmp_path) -> None:
    out = tmp_path / "converted" / "optimizers.py"
    result = CliRunner().invoke(main, ["convert", SCRIPT, "-o", str(out), "-q"])
    assert result.exit_code == 0, result.output
    code = out.read_text(encoding="utf-8")
    assert not re.search(r"\btorch\.|import torch|from torch", re.sub(r"#.*", "", code))
    assert "class Lion(ms_aux.Optimizer):" in code
    assert "ms_aux.foreach_norm(params)" in code
    # every training step takes gradients, the module-level one included (`lamb` is no
    # optimizer by its name, only by its class)
    assert code.count("optimizer(grads") == 1 and "lamb(grads" in code
    expected = _run(SCRIPT)
    got = _run(str(out), "-c", WITHOUT_TORCH)
    # 4 runs of 4 losses and 48 + 6 + 18 + 3 ... parameter values
    assert len(_numbers(got)) == len(_numbers(expected)) == 4 * (4 + 24 + 6 + 18 + 3)
    np.testing.assert_allclose(_numbers(got), _numbers(expected), rtol=1e-5, atol=1e-6)
    assert got.splitlines()[-1] == expected.splitlines()[-1] == "groups 2 states 4"
