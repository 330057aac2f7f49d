"""``torch2ms run --backend shim|real SCRIPT [ARGS]...``."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from click.testing import CliRunner
from conftest import require_module
from torch2ms.cli.run import command

SCRIPT = """
import sys
import mindspore as ms

x = ms.Tensor([1.0, 2.0])
print("args", sys.argv[1:])
print("grad", ms.grad(lambda t: (t * t).sum())(x))
print("name", __name__)
"""

FAILING = """
def inner():
    raise KeyError("broken on purpose")

inner()
"""


def write(tmp_path, name: str, code: str) -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(code), encoding="utf-8")
    return str(path)


def test_runs_a_script_on_the_shim_with_its_arguments(tmp_path):
    result = CliRunner().invoke(
        command,
        ["--backend", "shim", write(tmp_path, "s.py", SCRIPT), "--epochs", "2", "-v"],
    )
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        "args ['--epochs', '2', '-v']",
        "grad [2. 4.]",
        "name __main__",
    ]


def test_shim_is_the_default_backend(tmp_path):
    result = CliRunner().invoke(command, [write(tmp_path, "s.py", SCRIPT)])
    assert result.exit_code == 0, result.output
    assert "grad [2. 4.]" in result.output


def test_exit_code_is_the_scripts(tmp_path):
    script = write(tmp_path, "exit.py", "import sys\nprint('before')\nsys.exit(3)\n")
    result = CliRunner().invoke(command, [script])
    assert result.exit_code == 3
    assert result.output == "before\n"


def test_an_error_is_shown_as_the_scripts_own_traceback(tmp_path):
    script = write(tmp_path, "fail.py", FAILING)
    result = CliRunner().invoke(command, [script])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[1].startswith(f'  File "{script}", line 5')
    assert lines[-1] == "KeyError: 'broken on purpose'"
    assert "runpy" not in result.output and "cli/run.py" not in result.output


def test_help_describes_the_backends():
    result = CliRunner().invoke(command, ["--help"])
    assert result.exit_code == 0
    assert "--backend [shim|real]" in result.output and "SCRIPT" in result.output


def test_a_missing_script_is_a_usage_error(tmp_path):
    result = CliRunner().invoke(command, [str(tmp_path / "absent.py")])
    assert result.exit_code == 2


def test_runs_as_a_subprocess(tmp_path):
    script = write(tmp_path, "s.py", SCRIPT)
    result = subprocess.run(
        [sys.executable, "-m", "torch2ms.cli.run", "--backend", "shim", script, "a"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == "args ['a']"


def test_failing_subprocess_keeps_exit_code_and_traceback(tmp_path):
    script = write(tmp_path, "fail.py", FAILING)
    result = subprocess.run(
        [sys.executable, "-m", "torch2ms.cli.run", script],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert lines[:2] == [
        "Traceback (most recent call last):",
        f'  File "{script}", line 5, in <module>',
    ]
    assert lines[-1] == "KeyError: 'broken on purpose'"


@pytest.mark.real
def test_real_backend_runs_the_installed_mindspore(tmp_path):
    require_module("mindspore")
    script = write(tmp_path, "s.py", SCRIPT + "print('module', ms.Tensor.__module__)\n")
    result = subprocess.run(
        [sys.executable, "-m", "torch2ms.cli.run", "--backend", "real", script],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "grad [2. 4.]" in result.stdout
    assert "module mindspore.common.tensor" in result.stdout


def test_run_is_a_subcommand_of_torch2ms(tmp_path):
    from torch2ms.cli.main import main

    result = CliRunner().invoke(
        main, ["run", "--backend", "shim", write(tmp_path, "s.py", SCRIPT), "x"]
    )
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == "args ['x']"
