"""``torch2ms verify``: statuses, the JSON contract, exit codes, golden files, initial-state transfer."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from torch2ms.cli.verify import command
from torch2ms.migrator.sides import run_side
from torch2ms.migrator.verify import (
    is_runnable_script,
    run_verify,
    verify_files,
    verify_path,
)

CASES_DIR = os.path.join(os.path.dirname(__file__), "verify_cases")


def _case(name: str) -> str:
    return os.path.join(CASES_DIR, name)


def _invoke(*args: str):
    return CliRunner().invoke(command, list(args))


def test_json_contract_and_exit_code_zero_on_pass():
    result = _invoke(
        _case("lr_original.py"), _case("lr_converted.py"), "--format", "json", "-j", "1"
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    (pair,) = data["pairs"]
    assert pair["status"] == "pass"
    assert {
        "name",
        "status",
        "rules",
        "first_difference",
        "compared",
        "seconds",
    } <= set(pair)
    assert pair["compared"] >= 3 and pair["first_difference"] is None


def test_failure_names_first_difference_and_exits_one():
    result = _invoke(_case("lr_original.py"), _case("lr_broken.py"))
    assert result.exit_code == 1
    assert "FAIL" in result.output
    assert "first difference: printed 'step #2'" in result.output
    assert "original.py:16" in result.output


def test_rtol_option_loosens_the_comparison():
    result = _invoke(
        _case("lr_original.py"),
        _case("lr_broken.py"),
        "--rtol",
        "10",
        "--format",
        "json",
    )
    assert json.loads(result.output)["pairs"][0]["status"] == "pass"


def _pair(
    tmp_path, original: str, expected: str | None = None, meta: dict | None = None
):
    folder = tmp_path / "corpus" / "900_case"
    folder.mkdir(parents=True)
    (folder / "original.py").write_text(original)
    if expected is not None:
        (folder / "expected.py").write_text(expected)
    (folder / "meta.json").write_text(
        json.dumps(meta or {"rules": [], "source": "test"})
    )
    return folder


def test_golden_mismatch_is_reported_distinctly(tmp_path):
    plain = "x = 1.5\nprint('x', x)\n"
    folder = _pair(
        tmp_path,
        "import torch\n" + plain,
        expected="import mindspore\n" + plain + "# edited by hand\n",
    )
    reports, skipped = verify_path(str(folder.parent))
    assert not skipped
    (report,) = reports
    assert report["status"] == "fail"
    assert report["golden"] == "mismatch"
    assert report["reason"].startswith("golden mismatch:")


def test_pair_without_expected_is_converted_in_memory(tmp_path):
    folder = _pair(
        tmp_path,
        "import numpy as np\nimport torch\nx = np.arange(3.0)\nprint('x', x * 2)\n",
    )
    (report,) = verify_path(str(folder), jobs=1)[0]
    assert report["status"] == "pass", report
    assert "golden" not in report


def test_original_that_raises_is_an_error(tmp_path):
    script = tmp_path / "broken.py"
    script.write_text("import torch\nraise ValueError('boom')\n")
    (report,) = verify_files([(str(script), str(script))])
    assert report["status"] == "error"
    assert "ValueError: boom" in report["reason"]


def test_conversion_that_raises_fails(tmp_path):
    original = tmp_path / "ok.py"
    original.write_text("print('value', 2.0)\n")
    converted = tmp_path / "bad.py"
    converted.write_text("print('value', 2.0)\nraise RuntimeError('conversion bug')\n")
    (report,) = verify_files([(str(original), str(converted))])
    assert report["status"] == "fail"
    assert "RuntimeError: conversion bug" in report["reason"]


def test_missing_label_is_a_difference(tmp_path):
    original = tmp_path / "a.py"
    original.write_text("print('loss', 1.0)\nprint('acc', 0.5)\n")
    converted = tmp_path / "b.py"
    converted.write_text("print('loss', 1.0)\n")
    (report,) = verify_files([(str(original), str(converted))])
    assert report["status"] == "fail"
    assert report["first_difference"]["detail"] == "not printed by the conversion"


def test_timeout_is_an_error(tmp_path):
    script = tmp_path / "slow.py"
    script.write_text("import time\nprint('start', 1)\ntime.sleep(30)\n")
    (report,) = verify_files([(str(script), str(script))], timeout=1)
    assert report["status"] == "error"
    assert "timed out" in report["reason"]


def test_pair_for_other_backend_is_skipped(tmp_path):
    folder = _pair(
        tmp_path,
        "import torch\nprint('a', 1)\n",
        meta={"rules": [], "source": "t", "backends": ["real"]},
    )
    reports, skipped = verify_path(str(folder.parent), backend="shim")
    assert reports == [] and skipped == ["900_case"]


def test_directory_with_given_conversion(tmp_path):
    folder = _pair(tmp_path, Path(_case("lr_original.py")).read_text())
    shutil.copy(_case("lr_broken.py"), tmp_path / "conv.py")
    (report,) = verify_path(str(folder), str(tmp_path / "conv.py"))[0]
    assert report["status"] == "fail", report


@pytest.mark.real
def test_initial_parameters_are_transferred_on_real_frameworks(tmp_path):
    """Both sides draw their initial weights from their own framework's RNG; verify copies torch's."""
    pytest.importorskip("torch")
    pytest.importorskip("mindspore")
    reports = verify_files(
        [(_case("init_original.py"), _case("init_converted.py"))], backend="real"
    )
    (report,) = reports
    assert report["status"] == "pass", report
    assert report["init"]["transferred"]


@pytest.mark.real
def test_untransferable_initial_state_is_an_error_not_a_failure():
    pytest.importorskip("torch")
    pytest.importorskip("mindspore")
    (report,) = verify_files(
        [(_case("init_original.py"), _case("init_renamed.py"))], backend="real"
    )
    assert report["status"] == "error", report
    assert report["reason"].startswith("initial state not transferable")


@pytest.mark.parametrize(
    ("source", "runnable"),
    [
        ("import torch\n\n\ndef f(x):\n    return x\n", False),
        (
            '"""doc"""\nimport torch\nSIZE = 3\n\n\nclass Net(torch.nn.Module):\n    pass\n',
            False,
        ),
        ("import torch\n\nif __name__ == '__main__':\n    print(1)\n", True),
        ("import torch\nmodel = torch.nn.Linear(2, 2)\n", True),
        ("import torch\nfor i in range(2):\n    print(i)\n", True),
        ("def broken(:\n", False),
    ],
)
def test_is_runnable_script(source, runnable):
    assert is_runnable_script(source) is runnable


def test_convert_verify_hook_runs_only_scripts(tmp_path):
    library = tmp_path / "layers.py"
    library.write_text("import torch\n\n\ndef double(x):\n    return 2 * x\n")
    outputs = [
        {"path": "src/layers.py", "original": str(library), "converted": str(library)},
        {
            "path": "src/train.py",
            "original": _case("lr_original.py"),
            "converted": _case("lr_broken.py"),
        },
    ]
    (report,) = run_verify(
        outputs, {"backend": "shim", "target": "cpu", "style": "functional"}
    )
    assert report["name"] == "src/train.py"
    assert report["status"] == "fail"


def test_side_in_a_fresh_interpreter(tmp_path):
    """Outside a verify worker a side is a new Python process (``python -m torch2ms.migrator.observe``)."""
    script = tmp_path / "side.py"
    script.write_text("import torch\nw = torch.ones(2)\nprint('w', w * 3)\n")
    side = run_side(str(script), "shim", str(tmp_path / "work"), timeout=60)
    assert side.status == "ok", side.stderr
    assert side.meta["tensors"] == ["w"]
    assert side.arrays["tensor/w"].tolist() == [1.0, 1.0]
    assert side.meta["records"][0]["values"] == [3.0, 3.0]
    slow = tmp_path / "slow.py"
    slow.write_text("import time\ntime.sleep(30)\n")
    assert (
        run_side(str(slow), "shim", str(tmp_path / "slow"), timeout=1).status
        == "timeout"
    )
