"""``torch2ms convert`` and ``torch2ms rules`` through click's CliRunner and as a real process."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from torch2ms.cli import convert as convert_cli
from torch2ms.cli.main import main

MODEL = """import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)
"""
# torch.cuda has no certain MindSpore form: an untranslatable (error) finding.
UNTRANSLATABLE = "import torch\n\nprint(torch.cuda.ipc_collect())\n"
PLAIN = "def helper(x):\n    return x + 1\n"


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "model.py").write_text(MODEL)
    (src / "pkg" / "util.py").write_text(PLAIN)
    (src / "cuda.py").write_text(UNTRANSLATABLE)
    (src / "README.txt").write_bytes(b"notes\r\n\x00binary")
    (src / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (src / "run.sh").chmod(0o755)
    return src


def invoke(*args: str, cwd: Path | None = None):
    runner = CliRunner()
    if cwd is None:
        return runner.invoke(main, ["convert", *args], catch_exceptions=False)
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return runner.invoke(main, ["convert", *args], catch_exceptions=False)
    finally:
        os.chdir(old)


def test_output_tree_mirrors_input_and_leaves_it_untouched(
    tree: Path, tmp_path: Path
) -> None:
    before = _snapshot(tree)
    out = tmp_path / "out"
    result = invoke(str(tree), "-o", str(out))
    assert result.exit_code == 0, result.output
    assert _snapshot(tree) == before
    assert sorted(_snapshot(out)) == sorted(before)
    assert (out / "README.txt").read_bytes() == before["README.txt"]
    assert stat.S_IMODE((out / "run.sh").stat().st_mode) == 0o755
    assert (out / "pkg" / "util.py").read_bytes() == before["pkg/util.py"]
    converted = (out / "pkg" / "model.py").read_text()
    assert converted != MODEL and "mindspore" in converted
    for path in out.rglob("*.py"):
        compile(path.read_text(), str(path), "exec")


def test_summary_goes_to_stderr(tree: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["convert", str(tree), "-o", str(tmp_path / "out")]
    )
    assert result.exit_code == 0
    assert result.stdout == ""
    for word in (
        "Python files",
        "lines",
        "torch API uses",
        "converted",
        "error",
        "warning",
        "note",
        " s",
    ):
        assert word in result.stderr


def test_single_file_to_file_and_into_folder(tree: Path, tmp_path: Path) -> None:
    target = tmp_path / "single.py"
    assert invoke(str(tree / "pkg" / "model.py"), "-o", str(target)).exit_code == 0
    assert "mindspore" in target.read_text()
    folder = tmp_path / "folder"
    folder.mkdir()
    assert invoke(str(tree / "pkg" / "model.py"), "-o", str(folder)).exit_code == 0
    assert (folder / "model.py").read_text() == target.read_text()


def test_in_place_rewrites_only_what_changes(tree: Path) -> None:
    before = _snapshot(tree)
    result = invoke(str(tree), "--in-place")
    assert result.exit_code == 0, result.output
    after = _snapshot(tree)
    assert after["pkg/util.py"] == before["pkg/util.py"]
    assert after["README.txt"] == before["README.txt"]
    assert after["pkg/model.py"] != before["pkg/model.py"]
    # A second run changes nothing.
    assert invoke(str(tree), "--check").exit_code == 0
    assert _snapshot(tree) == after


def test_check_writes_nothing_and_fails_on_change(tree: Path, tmp_path: Path) -> None:
    before = _snapshot(tree)
    result = invoke(str(tree), "--check")
    assert result.exit_code == 1
    assert _snapshot(tree) == before
    assert invoke(str(tree), "--in-place", "--check").exit_code == 1
    assert (
        invoke(str(tree), "-o", str(tmp_path / "out"), "--check", "--diff").exit_code
        == 1
    )
    assert _snapshot(tree) == before and not (tmp_path / "out").exists()
    assert invoke(str(tree / "pkg" / "util.py"), "--check").exit_code == 0


def test_diff_is_a_unified_diff(tree: Path) -> None:
    result = invoke(str(tree / "pkg" / "model.py"), "--check", "--diff")
    assert result.exit_code == 1
    assert "--- a/" in result.stdout and "+++ b/" in result.stdout
    assert "\n-import torch.nn as nn\n" in result.stdout and "\n+" in result.stdout


def test_strict_fails_while_untranslatable_findings_remain(
    tree: Path, tmp_path: Path
) -> None:
    assert invoke(str(tree / "cuda.py"), "-o", str(tmp_path / "a.py")).exit_code == 0
    assert (
        invoke(
            str(tree / "cuda.py"), "-o", str(tmp_path / "b.py"), "--strict"
        ).exit_code
        == 1
    )
    assert (
        invoke(
            str(tree / "pkg" / "util.py"), "-o", str(tmp_path / "c.py"), "--strict"
        ).exit_code
        == 0
    )


def test_lint_prints_findings_and_writes_nothing(tree: Path) -> None:
    before = _snapshot(tree)
    result = invoke("--lint", str(tree / "cuda.py"), str(tree / "pkg" / "util.py"))
    assert result.exit_code == 1
    assert _snapshot(tree) == before
    path = (tree / "cuda.py").as_posix()
    assert re.search(
        rf"^{re.escape(path)}:3:\d+: TM\d{{3}} \S", result.stdout, re.MULTILINE
    ), result.stdout
    assert invoke("--lint", str(tree / "pkg" / "util.py")).exit_code == 0


def test_exit_nonzero_on_change(tree: Path) -> None:
    assert (
        invoke(
            str(tree / "pkg" / "model.py"), "--in-place", "--exit-nonzero-on-change"
        ).exit_code
        == 1
    )
    assert (
        invoke(
            str(tree / "pkg" / "model.py"), "--in-place", "--exit-nonzero-on-change"
        ).exit_code
        == 0
    )


def test_reports_by_suffix(tree: Path, tmp_path: Path) -> None:
    reports = [
        tmp_path / "r" / "report.json",
        tmp_path / "report.md",
        tmp_path / "report.sarif",
    ]
    args = [str(tree), "-o", str(tmp_path / "out")]
    for report in reports:
        args += ["--report", str(report)]
    assert invoke(*args).exit_code == 0
    data = json.loads(reports[0].read_text())
    assert data["summary"]["files_python"] == 3
    assert any(
        f["severity"] == "error" and f["path"].endswith("cuda.py")
        for f in data["findings"]
    )
    assert reports[1].read_text().startswith("# torch2ms conversion report")
    assert json.loads(reports[2].read_text())["version"] == "2.1.0"


@pytest.mark.parametrize(
    "args",
    [
        ["--report", "report.txt", "--check"],
        [],  # neither -o nor --in-place
        ["--in-place", "-o", "x"],
        ["--check", "--in-place", "-o", "x"],
        ["-j", "0", "--check"],
        ["--style", "keras", "--check"],
        ["--target", "tpu", "--check"],
    ],
)
def test_bad_usage_exits_2(tree: Path, args: list[str]) -> None:
    result = CliRunner().invoke(main, ["convert", str(tree), *args])
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def test_missing_source_and_output_equal_to_source(tree: Path, tmp_path: Path) -> None:
    assert invoke(str(tmp_path / "missing"), "--check").exit_code == 2
    assert invoke(str(tree), "-o", str(tree)).exit_code == 2
    assert invoke(str(tree / "cuda.py"), "-o", str(tree / "cuda.py")).exit_code == 2
    assert (
        invoke(str(tree / "pkg"), "-o", str(tree)).exit_code == 2
    )  # the input inside the output
    assert (
        invoke(str(tree), str(tree / "cuda.py"), "-o", str(tmp_path / "x")).exit_code
        == 2
    )


def test_output_inside_source_is_left_out(tree: Path) -> None:
    out = tree / "converted"
    assert invoke(str(tree), "-o", str(out)).exit_code == 0
    assert not (out / "converted").exists()
    assert invoke(str(tree), "-o", str(out)).exit_code == 0
    assert not (out / "converted").exists()


def test_exclude(tree: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert (
        invoke(
            str(tree), "-o", str(out), "--exclude", "pkg", "--exclude", "*.txt"
        ).exit_code
        == 0
    )
    assert sorted(_snapshot(out)) == ["cuda.py", "run.sh"]


def test_unreadable_inputs_are_copied_reported_and_the_rest_converts(
    tree: Path, tmp_path: Path
) -> None:
    broken = {
        "syntax.py": b"import torch\ndef f(:\n    pass\n",
        "py2.py": b"import torch\nprint 'hello'\n",
        "undecodable.py": b"import torch\nx = '\xff\xfe'\n",
    }
    for name, data in broken.items():
        (tree / name).write_bytes(data)
    out = tmp_path / "out"
    report = tmp_path / "report.json"
    result = invoke(str(tree), "-o", str(out), "--report", str(report))
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    for name, data in broken.items():
        assert (out / name).read_bytes() == data
        assert f"{name}:" in result.stderr
    assert "mindspore" in (out / "pkg" / "model.py").read_text()
    summary = json.loads(report.read_text())["summary"]
    assert summary["files_failed"] == 3
    failed = {
        Path(f["path"]).name
        for f in json.loads(report.read_text())["findings"]
        if f["rule"] == "TM000"
    }
    assert failed == set(broken)


def test_parallel_and_serial_give_the_same_output(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for i in range(12):
        (src / f"m{i:02d}.py").write_text(MODEL.replace("Net", f"Net{i}") * 12)
    one, many = tmp_path / "one", tmp_path / "many"
    assert invoke(str(src), "-o", str(one), "-j", "1").exit_code == 0
    assert invoke(str(src), "-o", str(many), "-j", "2").exit_code == 0
    assert _snapshot(one) == _snapshot(many)


def test_verify_without_a_backend_is_a_clear_usage_error(
    tree: Path, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setattr(convert_cli, "load_verify", lambda: None)
    result = CliRunner().invoke(
        main, ["convert", str(tree), "-o", str(tmp_path / "o"), "--verify"]
    )
    assert result.exit_code == 2
    assert "--verify" in result.stderr
    assert not (tmp_path / "o").exists()


def test_verify_hook_receives_originals_and_conversions(
    tree: Path, tmp_path: Path, monkeypatch
) -> None:
    seen = []

    def fake_verify(outputs, options):
        for item in outputs:
            seen.append(
                (
                    Path(item["original"]).read_text(),
                    Path(item["converted"]).read_text(),
                )
            )
        return [{"name": item["path"], "status": "fail"} for item in outputs]

    monkeypatch.setattr(convert_cli, "load_verify", lambda: fake_verify)
    result = invoke(str(tree / "pkg" / "model.py"), "--in-place", "--verify")
    assert result.exit_code == 1
    assert seen and seen[0][0] == MODEL and "mindspore" in seen[0][1]
    seen.clear()
    assert invoke(str(tree / "cuda.py"), "--check", "--verify").exit_code == 1
    assert seen and seen[0][0] == UNTRANSLATABLE


def test_rules_json_lists_rule_metadata() -> None:
    result = CliRunner().invoke(main, ["rules", "--format", "json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    ids = [rule["id"] for rule in data["rules"]]
    assert {"TM000", "TM001", "TM900", "TM999"} <= set(ids)
    assert ids == sorted(ids)
    for rule in data["rules"]:
        assert set(rule) >= {
            "id",
            "title",
            "what",
            "why",
            "use_instead",
            "severity",
            "family",
            "examples",
        }
    imports = next(rule for rule in data["rules"] if rule["id"] == "TM001")
    assert imports["examples"] and {"before", "after"} <= set(imports["examples"][0])
    assert isinstance(data["api_mappings"], list)
    for mapping in data["api_mappings"]:
        assert "torch" in mapping and "mindspore" in mapping


def test_rules_text() -> None:
    result = CliRunner().invoke(main, ["rules"])
    assert result.exit_code == 0
    assert "TM001" in result.stdout and "TM900" in result.stdout


def _console() -> list[str]:
    script = Path(sys.executable).with_name("torch2ms")
    if script.exists():
        return [str(script)]
    found = shutil.which("torch2ms")
    if found:
        return [found]
    return [sys.executable, "-c", "from torch2ms.cli.main import main; main()"]


def test_real_process(tree: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    report = tmp_path / "report.sarif"
    done = subprocess.run(
        [*_console(), "convert", str(tree), "-o", str(out), "--report", str(report)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "torch API uses" in done.stderr
    assert "mindspore" in (out / "pkg" / "model.py").read_text()
    assert (
        json.loads(report.read_text())["runs"][0]["tool"]["driver"]["name"]
        == "torch2ms"
    )
    bad = subprocess.run(
        [*_console(), "convert", str(tree)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
