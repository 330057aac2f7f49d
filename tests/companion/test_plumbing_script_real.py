"""A training script shaped like the device-agnostic examples, converted and run on MindSpore with
torch absent: the accelerator idiom, in-place initialisation under no_grad, a disabled autocast,
activation checkpointing, finfo, process-group queries and number formats."""

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
SCRIPT = os.path.join(os.path.dirname(__file__), "script_accelerator_idiom.py")
# Runs a script with `import torch` failing, as on a machine without torch.
WITHOUT_TORCH = (
    "import runpy, sys\nsys.modules['torch'] = None\nsys.argv = sys.argv[1:]\n"
    "runpy.run_path(sys.argv[0], run_name='__main__')\n"
)


def _numbers(output: str) -> list[float]:
    return [float(n) for n in re.findall(r"-?\d+\.\d+(?:e[-+]\d+)?", output)]


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


def test_converted_script_runs_without_torch_and_prints_what_torch_prints(
    fw, tmp_path
) -> None:
    out = tmp_path / "converted" / "classify.py"
    result = CliRunner().invoke(main, ["convert", SCRIPT, "-o", str(out), "-q"])
    assert result.exit_code == 0, result.output
    code = out.read_text(encoding="utf-8")
    assert "torch" not in re.sub(r"#.*", "", code).replace("torch2ms", "")
    assert ".to(" not in code and "loss.item()" in code and "total.item()" in code
    expected = _run(SCRIPT)
    got = _run(str(out), "-c", WITHOUT_TORCH)
    assert len(_numbers(got)) == len(_numbers(expected)) == 6
    np.testing.assert_allclose(_numbers(got), _numbers(expected), rtol=1e-4, atol=1e-5)
