"""Finding, decoding and writing source files."""

from __future__ import annotations

import os
import stat

import pytest
from torch2ms.migrator.context import Options
from torch2ms.migrator.runner import Task, convert_file
from torch2ms.migrator.sources import (
    UnreadableSource,
    atomic_write,
    decode,
    discover,
    encode,
    excluded,
)

TORCH = "import torch\nimport torch.nn as nn\n\n\nclass Net(nn.Module):\n    def forward(self, x):\n        return x\n"


def _tree(root, files: dict[str, bytes | str]) -> None:
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)


@pytest.mark.parametrize(
    ("data", "encoding", "text"),
    [
        (b"x = 1\n", "utf-8", "x = 1\n"),
        (b"\xef\xbb\xbfx = '\xc3\xa9'\n", "utf-8-sig", "x = 'é'\n"),
        (
            b"# -*- coding: latin-1 -*-\nx = '\xe9'\n",
            "iso-8859-1",
            "# -*- coding: latin-1 -*-\nx = 'é'\n",
        ),
        (b"x = 1\r\ny = 2\r\n", "utf-8", "x = 1\r\ny = 2\r\n"),
    ],
)
def test_decode_and_encode_round_trip(data: bytes, encoding: str, text: str) -> None:
    decoded = decode(data)
    assert decoded.encoding == encoding
    assert decoded.text == text
    assert encode(decoded.text, decoded.encoding) == data


@pytest.mark.parametrize(
    "data",
    [
        b"x = '\xff\xfe'\n",  # not UTF-8
        b"# coding: no-such-codec\nx = 1\n",
        b"\xef\xbb\xbf# coding: latin-1\nx = 1\n",  # a BOM that contradicts the cookie
    ],
)
def test_undecodable(data: bytes) -> None:
    with pytest.raises(UnreadableSource):
        decode(data)


@pytest.mark.parametrize(
    ("relative", "patterns", "expected"),
    [
        ("pkg/tests/test_a.py", ["tests"], True),
        ("pkg/tests/test_a.py", ["pkg/tests"], True),
        ("pkg/tests/test_a.py", ["*/tests/*"], True),
        ("pkg/tests/test_a.py", ["test_*.py"], True),
        ("pkg/tests/test_a.py", ["./pkg/"], True),
        ("pkg/model.py", ["tests", "*.txt"], False),
        ("pkg/model.py", [], False),
        ("pkg/testsuite/a.py", ["tests"], False),
    ],
)
def test_excluded(relative: str, patterns: list[str], expected: bool) -> None:
    assert excluded(relative, patterns) is expected


def test_discover_sorted_with_kinds_and_excludes(tmp_path) -> None:
    _tree(
        tmp_path,
        {
            "b.py": "",
            "a/z.py": "",
            "a/data.bin": b"\0",
            "a/skip/x.py": "",
            ".git/config": "",
            "__pycache__/m.pyc": b"",
        },
    )
    entries, skipped = discover(str(tmp_path), exclude=["skip"])
    assert [(e.relative, e.kind) for e in entries] == [
        ("a/data.bin", "file"),
        ("a/z.py", "python"),
        ("b.py", "python"),
    ]
    assert skipped == []


def test_discover_never_follows_symlinks_out_of_the_tree(tmp_path) -> None:
    outside = tmp_path / "outside"
    _tree(outside, {"secret.py": TORCH, "lib/mod.py": TORCH})
    root = tmp_path / "root"
    _tree(root, {"real.py": TORCH})
    (root / "file_link.py").symlink_to(outside / "secret.py")
    (root / "dir_link").symlink_to(outside / "lib", target_is_directory=True)
    (root / "dangling.py").symlink_to(tmp_path / "missing.py")
    (root / "inner.py").symlink_to("real.py")
    entries, skipped = discover(str(root))
    assert [(e.relative, e.kind) for e in entries] == [
        ("inner.py", "link"),
        ("real.py", "python"),
    ]
    assert sorted(s.relative for s in skipped) == [
        "dangling.py",
        "dir_link",
        "file_link.py",
    ]
    assert all("outside the tree" in s.reason for s in skipped)


def test_discover_skips_given_folders_and_leftover_temp_files(tmp_path) -> None:
    _tree(tmp_path, {"a.py": "", "out/a.py": "", ".torch2ms-abc.tmp": ""})
    entries, _ = discover(str(tmp_path), skip_dirs=[str(tmp_path / "out")])
    assert [e.relative for e in entries] == ["a.py"]


def test_atomic_write_keeps_permissions_and_leaves_no_temp_file(tmp_path) -> None:
    path = tmp_path / "run.py"
    path.write_text("old\n")
    path.chmod(0o751)
    atomic_write(str(path), b"new\n")
    assert path.read_bytes() == b"new\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o751
    assert os.listdir(tmp_path) == ["run.py"]
    fresh = tmp_path / "fresh.py"
    atomic_write(str(fresh), b"x\n", mode=0o600)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o600


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("crlf.py", TORCH.replace("\n", "\r\n").encode()),
        ("bom.py", b"\xef\xbb\xbf" + ("# caf\u00e9\n" + TORCH).encode()),
        ("latin1.py", b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + TORCH.encode()),
    ],
)
def test_conversion_keeps_encoding_and_newlines(
    tmp_path, name: str, data: bytes
) -> None:
    source = tmp_path / name
    source.write_bytes(data)
    out = tmp_path / "out.py"
    outcome = convert_file(
        Task(str(source), name, str(out), len(data), True), Options()
    )
    assert outcome.changed and not outcome.failed
    written = out.read_bytes()
    assert b"mindspore" in written
    if name == "crlf.py":
        assert written.count(b"\r\n") == written.count(b"\n")
    if name == "bom.py":
        assert written.startswith(b"\xef\xbb\xbf") and "café".encode() in written
    if name == "latin1.py":
        assert b"# caf\xe9\n" in written
    compile(decode(written).text, name, "exec")


def test_untouched_files_stay_byte_identical(tmp_path) -> None:
    data = b"# no framework here\r\nx = 1  \r\n\r\n\r\n"
    source = tmp_path / "plain.py"
    source.write_bytes(data)
    out = tmp_path / "copy.py"
    outcome = convert_file(
        Task(str(source), "plain.py", str(out), len(data), True), Options()
    )
    assert not outcome.changed and out.read_bytes() == data
