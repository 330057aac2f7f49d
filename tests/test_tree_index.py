"""The tree pass is one index with several kinds of fact, built in the workers: the conversion of a
file reads and parses that file once and opens no other file; only the files others import from
(and those with step hints) are indexed too, by the process that converts them, from the same read
and parse. The facts cross files as they did, and `-j 1` and `-j N` write the same bytes."""

from __future__ import annotations

import ast
import builtins
import filecmp
import os
from collections import Counter

import pytest
from torch2ms.migrator import pool, tree_index, tree_pass
from torch2ms.migrator.context import Options
from torch2ms.migrator.runner import plan, run

FILES = {
    "pkg/__init__.py": "",
    "pkg/base.py": (
        "import torch\nimport torch.nn as nn\n\nclass Base(nn.Module):\n    pass\n"
    ),
    "pkg/user.py": (
        "from .base import *\n"
        "from .base import Base\n\n"
        "class Head(Base):\n"
        "    def forward(self, x):\n"
        "        return torch.relu(x)\n"
    ),
    "pkg/plain.py": ("import torch\n\ndef double(x):\n    return torch.mul(x, 2)\n"),
}


def _tree(tmp_path, files=FILES) -> str:
    for name, text in files.items():
        path = tmp_path / "src" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return str(tmp_path / "src" / "pkg")


def _counting(monkeypatch) -> tuple[Counter, Counter]:
    """Opens of Python files by path, and ``ast`` parses by source text."""
    opened: Counter = Counter()
    parsed: Counter = Counter()
    real_open, real_parse = builtins.open, ast.parse

    def counted_open(file, mode="r", *args, **kwargs):
        if isinstance(file, str) and file.endswith(".py") and "r" in mode:
            opened[os.path.basename(file)] += 1
        return real_open(file, mode, *args, **kwargs)

    def counted_parse(source, *args, **kwargs):
        parsed[source if isinstance(source, str) else source.decode()] += 1
        return real_parse(source, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", counted_open)
    monkeypatch.setattr(ast, "parse", counted_parse)
    return opened, parsed


def test_one_summary_serves_star_imports_and_module_classes(tmp_path, monkeypatch):
    root = _tree(tmp_path)
    files = [(os.path.join(root, n), n) for n in ("base.py", "user.py", "plain.py")]
    indexed = tree_pass.index_tree(files, root)
    # only the file the others import from is summarised
    assert set(indexed.tables[root]) == {os.path.join(root, "base.py")}
    tree_pass.install(indexed.tables)
    monkeypatch.setattr(
        tree_index, "read_summary", lambda *a: pytest.fail("a file was read again")
    )
    text = FILES["pkg/user.py"]
    inherited, classes = tree_pass.file_facts(
        os.path.join(root, "user.py"), root, text, ast.parse(text)
    )
    assert inherited == {"torch": "torch", "nn": "torch.nn"}
    assert classes == frozenset({"Base"})
    assert tree_pass.read_here() == []


def test_a_run_reads_and_parses_each_file_once(tmp_path, monkeypatch):
    root = _tree(tmp_path)
    opened, parsed = _counting(monkeypatch)
    run(plan([root], str(tmp_path / "out")), Options(), jobs=1)
    # the first look, the index of the file others import from and the conversion share one
    # read and one parse
    for name in ("user.py", "plain.py", "base.py"):
        assert parsed[FILES[f"pkg/{name}"]] == 1, name
        assert opened[name] == 1, name
    assert tree_pass.read_here() == []
    user = (tmp_path / "out" / "user.py").read_text(encoding="utf-8")
    assert "def construct(self, x):" in user  # Base is a Module of another file
    assert "ops.relu(x)" in user or "mint.nn.functional.relu(x)" in user
    assert "torch" not in user.replace("torch2ms", "")


def test_the_workers_read_and_parse_each_file_once(tmp_path, monkeypatch):
    """Each file's worker indexes and converts it: no file is read or parsed twice in the
    processes of the run (the step pass included)."""
    files = {
        **FILES,
        **STEP_FILES,
        **{f"pkg/m{i}.py": f"import torch\nx{i} = torch.ones({i})\n" for i in range(8)},
    }
    root = _tree(tmp_path, files)
    log = tmp_path / "log"
    real_open, real_parse = builtins.open, ast.parse
    names = {text: name for name, text in files.items() if text}

    def note(what: str, name: str) -> None:
        with real_open(log, "a") as handle:
            handle.write(f"{os.getpid()} {what} {name}\n")

    def counted_open(file, mode="r", *args, **kwargs):
        if isinstance(file, str) and file.startswith(root) and "r" in mode:
            note("open", os.path.relpath(file, root))
        return real_open(file, mode, *args, **kwargs)

    def counted_parse(source, *args, **kwargs):
        text = source if isinstance(source, str) else source.decode()
        if text in names:
            note("parse", names[text])
        return real_parse(source, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", counted_open)
    monkeypatch.setattr(ast, "parse", counted_parse)
    monkeypatch.setattr(pool, "SERIAL_FILES", 0)
    monkeypatch.setattr(pool, "SERIAL_BYTES", 0)
    result = run(plan([root], str(tmp_path / "out")), Options(), jobs=2)
    assert not result.failed
    events = [line.split() for line in log.read_text().splitlines()]
    assert (
        len({pid for pid, _, _ in events}) == 2
    )  # both workers, and not the main process
    assert os.getpid() not in {int(pid) for pid, _, _ in events}
    counted = Counter((what, name) for _, what, name in events)
    assert counted and max(counted.values()) == 1, log.read_text()
    assert {name for what, name in counted if what == "parse"} >= {
        "pkg/base.py",
        "pkg/stepper.py",
        "pkg/train.py",
    }
    train = (tmp_path / "out" / "train.py").read_text(encoding="utf-8")
    assert "value_and_grad" in train and "step(grads, optimizer)" in train


def test_a_file_left_out_of_the_run_is_read_once_by_the_main_process(tmp_path):
    root = _tree(tmp_path)
    run(plan([root], str(tmp_path / "out"), exclude=["base.py"]), Options(), jobs=1)
    assert tree_pass.read_here() == [os.path.join(root, "base.py")]
    user = (tmp_path / "out" / "user.py").read_text(encoding="utf-8")
    assert "def construct(self, x):" in user


STEP_FILES = {
    "pkg/__init__.py": "",
    "pkg/stepper.py": (
        "import torch\n\n"
        "class ScaledStep:\n"
        "    def __call__(self, loss, optimizer):\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
    ),
    "pkg/train.py": (
        "import torch\n"
        "from .stepper import ScaledStep\n\n"
        "def train(model, data, target):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    step = ScaledStep()\n"
        "    for x, y in zip(data, target):\n"
        "        optimizer.zero_grad()\n"
        "        loss = torch.nn.functional.mse_loss(model(x), y)\n"
        "        step(loss, optimizer)\n"
    ),
}


@pytest.mark.parametrize("files", [FILES, STEP_FILES], ids=["classes", "steps"])
def test_one_process_and_a_pool_write_the_same_bytes(tmp_path, monkeypatch, files):
    root = _tree(tmp_path, {**files, **{f"pkg/m{i}.py": "x = 1\n" for i in range(8)}})
    run(plan([root], str(tmp_path / "one")), Options(), jobs=1)
    monkeypatch.setattr(pool, "SERIAL_FILES", 0)
    monkeypatch.setattr(pool, "SERIAL_BYTES", 0)
    result = run(plan([root], str(tmp_path / "two")), Options(), jobs=2)
    assert not result.failed
    compared = filecmp.dircmp(tmp_path / "one", tmp_path / "two")
    assert compared.left_list == compared.right_list
    assert not compared.diff_files and not compared.funny_files
    for name in compared.left_list:
        one = (tmp_path / "one" / name).read_bytes()
        assert one == (tmp_path / "two" / name).read_bytes(), name
    if files is STEP_FILES:
        # train.py has no step hint: its worker sends back its step index, and it is converted
        # with the facts of the helper it calls once they are merged
        train = (tmp_path / "two" / "train.py").read_text(encoding="utf-8")
        assert "value_and_grad" in train and "step(grads, optimizer)" in train
    else:
        user = (tmp_path / "two" / "user.py").read_text(encoding="utf-8")
        assert "def construct(self, x):" in user


# The work of each phase for one file: the first look, the index, the conversion.
PHASES = {"look": "_scan_file", "index": "_index_file", "convert": "_convert_or_defer"}


@pytest.mark.parametrize("phase", list(PHASES))
def test_the_files_of_a_worker_that_died_are_done_in_the_main_process(
    tmp_path, monkeypatch, phase
):
    from torch2ms.migrator import runner

    root = _tree(tmp_path, {**FILES, **{f"pkg/m{i}.py": "x = 1\n" for i in range(8)}})
    run(plan([root], str(tmp_path / "one")), Options(), jobs=1)
    main = os.getpid()
    real = getattr(runner, PHASES[phase])
    dying = "base.py" if phase == "index" else "user.py"  # base.py is the one indexed

    def dies_in_a_worker(task, *args):
        if os.getpid() != main and task.display.endswith(dying):
            (tmp_path / "died").touch()
            os._exit(1)
        return real(task, *args)

    monkeypatch.setattr(runner, PHASES[phase], dies_in_a_worker)
    monkeypatch.setattr(pool, "SERIAL_FILES", 0)
    monkeypatch.setattr(pool, "SERIAL_BYTES", 0)
    result = run(plan([root], str(tmp_path / "two")), Options(), jobs=2)
    assert (tmp_path / "died").exists()
    assert len(result.outcomes) == len(FILES) + 8
    for name in os.listdir(tmp_path / "one"):
        one = (tmp_path / "one" / name).read_bytes()
        assert one == (tmp_path / "two" / name).read_bytes(), name
