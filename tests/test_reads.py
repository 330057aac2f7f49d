"""What a process keeps of the files of a run for its later phases: one read and one parse per
file within the budget, a second read or parse past it, and nothing once a file is done."""

from __future__ import annotations

import filecmp

import pytest
from torch2ms.migrator import reads
from torch2ms.migrator.context import Options
from torch2ms.migrator.runner import plan, run

SOURCE = "import torch\n\nx = torch.ones(3)\n"


@pytest.fixture(autouse=True)
def _empty():
    reads.clear()
    yield
    reads.clear()


def test_a_kept_file_is_read_and_parsed_once(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(SOURCE, encoding="utf-8")
    data = reads.read_bytes(str(path))
    path.write_text(
        "changed = 1\n", encoding="utf-8"
    )  # what was read stays what is used
    assert reads.read_bytes(str(path)) == data
    text = reads.decoded(str(path), data).text
    assert reads.parsed_before(str(path)) is reads.UNPARSED
    tree = reads.parsed(str(path), text)
    assert reads.parsed(str(path), text) is tree
    assert reads.parsed_before(str(path)) is tree
    reads.forget(str(path))
    assert reads.parsed_before(str(path)) is reads.UNPARSED
    assert reads.read_bytes(str(path)) == b"changed = 1\n"


def test_past_the_budget_a_file_is_read_and_parsed_again(tmp_path, monkeypatch):
    path = tmp_path / "m.py"
    path.write_text(SOURCE, encoding="utf-8")
    # room for the bytes and the text, not for the syntax tree
    monkeypatch.setattr(reads, "BUDGET", 2 * len(SOURCE) + 1)
    data = reads.read_bytes(str(path))
    text = reads.decoded(str(path), data).text
    tree = reads.parsed(str(path), text)
    assert reads.parsed(str(path), text) is not tree
    assert reads.parsed_before(str(path)) is reads.UNPARSED
    monkeypatch.setattr(reads, "BUDGET", 0)
    reads.forget(str(path))
    path.write_text("changed = 1\n", encoding="utf-8")
    assert reads.read_bytes(str(path)) == b"changed = 1\n"
    path.write_text("changed = 2\n", encoding="utf-8")
    assert reads.read_bytes(str(path)) == b"changed = 2\n"


def test_a_file_that_does_not_parse_is_parsed_once(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("def f(:\n", encoding="utf-8")
    data = reads.read_bytes(str(path))
    text = reads.decoded(str(path), data).text
    assert reads.parsed(str(path), text) is None
    assert reads.parsed_before(str(path)) is None


def test_a_run_keeps_nothing_and_writes_the_same_bytes_past_the_budget(
    tmp_path, monkeypatch
):
    src = tmp_path / "src" / "pkg"
    src.mkdir(parents=True)
    (src / "__init__.py").write_text("", encoding="utf-8")
    (src / "base.py").write_text(
        "import torch.nn as nn\n\nclass Base(nn.Module):\n    pass\n", encoding="utf-8"
    )
    (src / "user.py").write_text(
        "import torch\nfrom .base import Base\n\n"
        "class Head(Base):\n    def forward(self, x):\n        return torch.relu(x)\n",
        encoding="utf-8",
    )
    run(plan([str(src)], str(tmp_path / "kept")), Options(), jobs=1)
    assert reads._KEPT == {}  # a run leaves nothing behind
    monkeypatch.setattr(reads, "BUDGET", 0)
    run(plan([str(src)], str(tmp_path / "again")), Options(), jobs=1)
    compared = filecmp.dircmp(tmp_path / "kept", tmp_path / "again")
    assert compared.left_list == compared.right_list and not compared.diff_files
    user = (tmp_path / "again" / "user.py").read_text(encoding="utf-8")
    assert "def construct(self, x):" in user
