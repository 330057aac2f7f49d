"""Both hooks of .pre-commit-hooks.yaml, end to end under the real pre-commit (``try-repo``).

pre-commit installs torch2ms from a committed copy of this repository into its own environment.
The install runs without an index: torch2ms itself is built from the copy, and its dependencies
(libcst, click, numpy, setuptools) are served from the running interpreter's site-packages.
"""

from __future__ import annotations

import os
import re
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TRAIN = """import torch
import torch.nn as nn


class Net(nn.Module):
    def forward(self, x):
        return x


print(torch.cuda.ipc_collect())
"""
PLAIN = "def helper():\n    return 1\n"
IGNORED = (
    ".git",
    ".hypothesis",
    ".pytest_cache",
    ".ruff_cache",
    "__pycache__",
    "*.egg-info",
    "build",
    "dist",
)

pytestmark = pytest.mark.slow


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        [
            "git",
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.invalid",
            "-c",
            "commit.gpgsign=false",
            *args,
        ],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def _pre_commit() -> list[str]:
    script = Path(sys.executable).with_name("pre-commit")
    if script.exists():
        return [str(script)]
    found = shutil.which("pre-commit")
    if found:
        return [found]
    pytest.importorskip("pre_commit")
    return [sys.executable, "-m", "pre_commit"]


@pytest.fixture(scope="module")
def hooks_repo(tmp_path_factory) -> Path:
    copy = tmp_path_factory.mktemp("hooks") / "torch2ms"
    shutil.copytree(REPO, copy, ignore=shutil.ignore_patterns(*IGNORED), symlinks=True)
    _git(copy, "init", "-q")
    _git(copy, "add", "-A")
    _git(copy, "commit", "-q", "-m", "snapshot")
    return copy


@pytest.fixture(scope="module")
def environment(tmp_path_factory) -> dict[str, str]:
    env = dict(os.environ)
    paths = [p for p in site.getsitepackages() if os.path.isdir(p)]
    env.update(
        PRE_COMMIT_HOME=str(tmp_path_factory.mktemp("pre-commit-home")),
        PIP_NO_INDEX="1",
        PIP_NO_DEPS="1",
        PIP_NO_BUILD_ISOLATION="0",  # pip reads the negative flag inverted: "0" turns isolation off
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        PYTHONPATH=os.pathsep.join(paths),
        VIRTUALENV_PYTHON=sys.executable,
    )
    env.pop("PRE_COMMIT", None)
    return env


def _user_repo(path: Path) -> Path:
    path.mkdir()
    (path / "train.py").write_text(TRAIN)
    (path / "plain.py").write_text(PLAIN)
    _git(path, "init", "-q")
    _git(path, "add", "-A")
    _git(path, "commit", "-q", "-m", "user code")
    return path


def _try_repo(
    hooks: Path, hook: str, cwd: Path, env: dict[str, str]
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*_pre_commit(), "try-repo", str(hooks), hook, "--all-files", "--verbose"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_rewrite_hook_fails_when_it_changed_files(
    hooks_repo: Path, environment: dict[str, str], tmp_path: Path
) -> None:
    user = _user_repo(tmp_path / "user")
    first = _try_repo(hooks_repo, "torch2ms", user, environment)
    assert first.returncode == 1, first.stdout + first.stderr
    assert "files were modified by this hook" in first.stdout
    converted = (user / "train.py").read_text()
    assert converted != TRAIN and "mindspore" in converted
    assert (user / "plain.py").read_text() == PLAIN
    compile(converted, "train.py", "exec")
    # Converting again changes nothing, so the hook passes.
    _git(user, "add", "-A")
    second = _try_repo(hooks_repo, "torch2ms", user, environment)
    assert second.returncode == 0, second.stdout + second.stderr
    assert (user / "train.py").read_text() == converted


def test_check_hook_fails_while_untranslatable_findings_remain(
    hooks_repo: Path, environment: dict[str, str], tmp_path: Path
) -> None:
    user = _user_repo(tmp_path / "user")
    failing = _try_repo(hooks_repo, "torch2ms-check", user, environment)
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert re.search(r"^train\.py:\d+:\d+: TM\d{3} \S", failing.stdout, re.MULTILINE), (
        failing.stdout
    )
    assert (user / "train.py").read_text() == TRAIN  # the check writes nothing
    (user / "train.py").write_text(PLAIN)
    _git(user, "add", "-A")
    passing = _try_repo(hooks_repo, "torch2ms-check", user, environment)
    assert passing.returncode == 0, passing.stdout + passing.stderr
