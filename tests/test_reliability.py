"""A run that is killed, inputs that cannot be read, and what must survive a conversion byte for byte."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner
from torch2ms.cli.main import main
from torch2ms.migrator.context import Options
from torch2ms.migrator.convert import convert_source
from torch2ms.migrator.sources import TEMP_PREFIX, decode

MODEL = '''import torch
import torch.nn as nn
import torch.nn.functional as F


class Block{i}(nn.Module):
    """A block."""

    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        y = F.relu(self.fc(x))
        return torch.cat([x, y], dim=-1)


def make{i}():
    return Block{i}(8)
'''


def _convert(*args: str):
    return CliRunner().invoke(main, ["convert", *args], catch_exceptions=False)


def test_killed_run_leaves_each_file_as_it_was_or_fully_converted(
    tmp_path: Path,
) -> None:
    src = tmp_path / "src"
    src.mkdir()
    originals = {}
    for i in range(150):
        text = MODEL.format(i=i)
        path = src / f"m{i:03d}.py"
        path.write_text(text)
        originals[path.name] = text
    expected = {
        name: convert_source(text, name, Options()).code
        for name, text in originals.items()
    }
    assert expected["m000.py"] != originals["m000.py"]
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from torch2ms.cli.main import main; main()",
            "convert",
            str(src),
            "--in-place",
            "-j",
            "1",
            "-q",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        first = src / "m000.py"
        while process.poll() is None and time.monotonic() < deadline:
            if first.read_text() != originals[first.name]:
                break
            time.sleep(0.005)
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait()
    converted = untouched = 0
    for name, text in originals.items():
        now = (src / name).read_text()
        if now == text:
            untouched += 1
            continue
        converted += 1
        assert now == expected[name], name
        compile(now, name, "exec")
    assert converted >= 1
    # Leftover temp files of the killed run are ignored, and a new run finishes the job.
    leftovers = [p for p in src.iterdir() if p.name.startswith(TEMP_PREFIX)]
    result = _convert(str(src), "--in-place")
    assert result.exit_code == 0
    for name in originals:
        assert (src / name).read_text() == expected[name]
    assert all(p.exists() for p in leftovers) or not leftovers


def test_bad_inputs_are_copied_unchanged_and_reported(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    broken = {
        "syntax_error.py": b"import torch\nx = (\n",
        "python2.py": b"import torch\nprint 'loss', loss\nexec 'x = 1'\n",
        "undecodable.py": b"import torch\ns = '\x80\x81'\n",
        "bad_cookie.py": b"# -*- coding: klingon -*-\nimport torch\n",
        "null_byte.py": b"import torch\nx = 1\0\n",
    }
    for name, data in broken.items():
        (src / name).write_bytes(data)
    good = {
        "latin1.py": b"# -*- coding: latin-1 -*-\n# \xe9t\xe9\nimport torch.nn as nn\nlayer = nn.ReLU()\n",
        "bom.py": b"\xef\xbb\xbfimport torch.nn as nn\nlayer = nn.ReLU()\n",
        "crlf.py": b"import torch.nn as nn\r\n\r\nlayer = nn.ReLU()\r\n",
    }
    for name, data in good.items():
        (src / name).write_bytes(data)
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["convert", str(src), "-o", str(out)])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    for name, data in broken.items():
        assert (out / name).read_bytes() == data
        assert f"{name}:" in result.stderr and "TM000" in result.stderr
    assert (src / "python2.py").read_bytes() == broken["python2.py"]
    latin1 = (out / "latin1.py").read_bytes()
    assert (
        latin1.startswith(b"# -*- coding: latin-1 -*-\n# \xe9t\xe9\n")
        and latin1 != good["latin1.py"]
    )
    assert (out / "bom.py").read_bytes().startswith(b"\xef\xbb\xbf")
    crlf = (out / "crlf.py").read_bytes()
    assert crlf != good["crlf.py"] and crlf.count(b"\n") == crlf.count(b"\r\n")
    for name in good:
        compile(decode((out / name).read_bytes()).text, name, "exec")


def test_in_place_keeps_permissions_and_untouched_files(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    script = src / "train.py"
    script.write_text("#!/usr/bin/env python\n" + MODEL.format(i=0))
    script.chmod(0o750)
    plain = src / "plain.py"
    plain.write_bytes(b"x = 1   \r\n\r\n# trailing spaces and CRLF stay\r\n")
    plain.chmod(0o640)
    before = plain.stat().st_mtime_ns
    assert _convert(str(src), "--in-place").exit_code == 0
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    assert "mindspore" in script.read_text()
    assert plain.read_bytes() == b"x = 1   \r\n\r\n# trailing spaces and CRLF stay\r\n"
    assert plain.stat().st_mtime_ns == before  # not even rewritten
    assert stat.S_IMODE(plain.stat().st_mode) == 0o640


def test_symlinks_out_of_the_tree_are_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.py"
    secret.write_text(MODEL.format(i=1))
    (outside / "lib").mkdir()
    (outside / "lib" / "mod.py").write_text(MODEL.format(i=2))
    src = tmp_path / "src"
    src.mkdir()
    (src / "model.py").write_text(MODEL.format(i=3))
    (src / "escape.py").symlink_to(secret)
    (src / "lib").symlink_to(outside / "lib", target_is_directory=True)
    (src / "alias.py").symlink_to("model.py")
    before = {p: p.read_bytes() for p in outside.rglob("*.py")}
    result = CliRunner().invoke(main, ["convert", str(src), "--in-place"])
    assert result.exit_code == 0
    assert {p: p.read_bytes() for p in outside.rglob("*.py")} == before
    assert "escape.py" in result.stderr and "outside the tree" in result.stderr
    assert (src / "escape.py").is_symlink() and (src / "alias.py").is_symlink()
    out = tmp_path / "out"
    assert (
        CliRunner().invoke(main, ["convert", str(src), "-o", str(out)]).exit_code == 0
    )
    assert not (out / "escape.py").exists() and not (out / "lib").exists()
    assert os.readlink(out / "alias.py") == "model.py"


def test_internal_rule_failure_leaves_the_file_unconverted(
    tmp_path: Path, monkeypatch
) -> None:
    from torch2ms.migrator import runner

    def explode(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(runner, "convert_source", explode)
    src = tmp_path / "m.py"
    src.write_text(MODEL.format(i=0))
    out = tmp_path / "o.py"
    result = CliRunner().invoke(
        main, ["convert", str(src), "-o", str(out), "--strict", "--print-findings"]
    )
    assert result.exit_code == 1
    assert "TM999" in result.stdout and "boom" in result.stdout
    assert out.read_text() == MODEL.format(i=0)
