"""scripts/examples_run.py on a small tree shaped like pytorch/examples (tests/data/fake_examples):
a checkout and a bare git directory, conversions that run with falling losses, and one that cannot."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest
from data_support import frameworks

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE = os.path.join(HERE, "fake_examples")
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "examples_run.py")


def run_script(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, SCRIPT, *args],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


def test_losses_are_read_from_printed_lines() -> None:
    sys.path.insert(0, os.path.dirname(SCRIPT))
    try:
        import examples_run
    finally:
        sys.path.pop(0)
    text = (
        "Train Epoch: 1 [0/640 (0%)]\tLoss: 2.302585\n"
        "Test set: Average loss: 0.1234, Accuracy: 9/10 (90%)\n"
        "Loss: 1.5e-03 after 12 batches\n"
    )
    assert examples_run.losses(text) == [2.302585, 0.1234, 0.0015]


def test_mnist_idx_files_read_by_torchvision(tmp_path) -> None:
    _, torchvision, _ = frameworks()
    sys.path.insert(0, os.path.dirname(SCRIPT))
    try:
        import examples_run
    finally:
        sys.path.pop(0)
    examples_run.write_mnist(str(tmp_path), train=12, test=4)
    data = torchvision.datasets.MNIST(str(tmp_path), train=True, download=True)
    image, label = data[3]
    assert len(data) == 12 and image.size == (28, 28) and 0 <= label < 10
    assert np.asarray(image).max() == 255


def _sides(out: str, name: str) -> dict[str, str]:
    """The torch and MindSpore report lines of one example."""
    block = out.split(f"{name}:\n", 1)[1].split("\n")[:2]
    return {line.split(":", 1)[0].strip(): line.split(":", 1)[1] for line in block}


def _first_last(line: str) -> tuple[float, float]:
    found = re.search(r"loss first (\S+) last (\S+)", line)
    assert found, line
    return float(found.group(1)), float(found.group(2).rstrip(":"))


@pytest.mark.real
@pytest.mark.slow
def test_checkout_runs_both_sides(tmp_path) -> None:
    """Each fake example runs on real torch, and its conversion on real MindSpore with torch and
    torchvision unimportable; their losses fall on both sides. The last one's conversion still
    needs torch, so it fails, and the script says so."""
    frameworks()
    names = ("mnist", "dcgan", "regression", "word_language_model")
    done = run_script(
        FAKE,
        *(part for name in names for part in ("--only", name)),
        *("--work", str(tmp_path)),
    )
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    for name in names[:3]:
        sides = _sides(out, name)
        for side in ("torch", "mindspore"):
            assert sides[side].startswith(" ran, loss first"), (name, side, out)
            first, last = _first_last(sides[side])
            assert last < first, (name, side, first, last)
        converted = (tmp_path / "converted" / name / "main.py").read_text()
        assert not re.search(r"^\s*(import|from) torch", converted, re.MULTILINE), (
            converted
        )
    failing = _sides(out, "word_language_model")
    assert failing["torch"].startswith(" ran, loss first")
    assert failing["mindspore"].startswith(" FAILED (exit 1)")
    assert "import of torch halted" in failing["mindspore"]
    assert "3 of 4 conversions ran" in out
    assert (tmp_path / "converted" / "dcgan" / "out" / "real_samples.png").exists()
    aux = (tmp_path / "converted" / "dcgan" / "ms_aux.py").read_text()
    assert "def data_parallel(" in aux
    regression = (tmp_path / "converted" / "regression" / "main.py").read_text()
    assert ".format(w.item(), i + 1)" in regression
    assert os.path.exists(tmp_path / "original" / "data" / "MNIST" / "raw")


@pytest.mark.real
def test_bare_git_directory(tmp_path) -> None:
    frameworks()
    if shutil.which("git") is None:
        pytest.fail("git is needed to build the bare directory")
    checkout = tmp_path / "checkout"
    shutil.copytree(FAKE, checkout)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(checkout)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "examples"], check=True)
    bare = tmp_path / "bare.git"
    subprocess.run(
        ["git", "clone", "-q", "--bare", str(checkout), str(bare)], check=True
    )
    done = run_script(
        str(bare),
        *("--only", "word_language_model", "--work", str(tmp_path / "work")),
    )
    assert "word_language_model:" in done.stdout, done.stdout + done.stderr
    assert "torch    : ran, loss first" in done.stdout
    assert (tmp_path / "work" / "original" / "word_language_model" / "main.py").exists()
    assert done.returncode == 1


def test_missing_examples_are_an_error(tmp_path) -> None:
    done = run_script(str(tmp_path), "--only", "vae")
    assert done.returncode == 2
    assert "none of the examples" in done.stderr
