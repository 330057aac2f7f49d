"""Stopping a run leaves nothing behind: no process of the run, no torn file.

Each test starts the real command line in a process of its own, waits until its workers are busy,
stops it (SIGTERM, SIGHUP, Ctrl-C to its process group, or SIGKILL to the main process) and then
checks the processes recorded just before the stop, the exit code, and every file of the tree.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from torch2ms.cli.main import main

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads the process tree from /proc"
)

FILES = 200
LEFT_WITHIN = (
    3.0  # seconds after the stop by which every process of the run must be gone
)
BUSY_WITHIN = 120.0  # a loaded two-core machine may take long to start the run

BLOCK = '''

class Block{i}x{k}(nn.Module):
    """Residual block {k} of model {i}."""

    def __init__(self, width):
        super().__init__()
        self.fc1 = nn.Linear(width, width * 2)
        self.fc2 = nn.Linear(width * 2, width)
        self.norm = nn.LayerNorm(width)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        y = F.gelu(self.fc1(self.norm(x)))
        y = self.drop(self.fc2(y))
        z = torch.cat([x, y], dim=-1)
        return torch.sum(z.view(z.shape[0], 2, -1), dim=1)


def train{i}x{k}(model, data, epochs=2):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.MSELoss()
    for _ in range(epochs):
        for x, y in data:
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
    return loss.item()
'''
HEAD = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"


# -- the process tree, from /proc -------------------------------------------------------------


def _stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _descendants(root: int) -> dict[int, str]:
    """Every process below ``root``: pid -> start time (to tell a reused pid apart)."""
    children: dict[int, list[int]] = {}
    started: dict[int, str] = {}
    for name in os.listdir("/proc"):
        if name.isdigit() and (fields := _stat(int(name))) is not None:
            children.setdefault(int(fields[1]), []).append(int(name))
            started[int(name)] = fields[19]
    found, stack = {}, [root]
    while stack:
        for pid in children.get(stack.pop(), []):
            found[pid] = started[pid]
            stack.append(pid)
    return found


def _alive(pid: int, started: str) -> bool:
    fields = _stat(pid)
    return fields is not None and fields[0] != "Z" and fields[19] == started


class Run:
    """A command line run in a session of its own (so a Ctrl-C can go to its process group)."""

    def __init__(self, *args: str, cwd: Path | None = None) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "torch2ms", *args],
            cwd=cwd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        self.tree: dict[int, str] = {}

    def wait_until(self, ready: Callable[[dict[int, str]], bool]) -> None:
        deadline = time.monotonic() + BUSY_WITHIN
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.process.stderr.read().decode()
            tree = _descendants(self.process.pid)
            if ready(tree):
                return
            time.sleep(0.02)
        self.kill_all()
        pytest.fail("the run never got busy")

    def stop(self, signum: int, group: bool = False) -> float:
        """Record the tree, send the signal, return the seconds until nothing of the run is left."""
        self.tree = _descendants(self.process.pid)
        start = time.monotonic()
        if group:
            os.killpg(self.process.pid, signum)
        else:
            os.kill(self.process.pid, signum)
        while time.monotonic() - start < 10:
            main_done = self.process.poll() is not None
            left = [pid for pid, started in self.tree.items() if _alive(pid, started)]
            if main_done and not left:
                return time.monotonic() - start
            time.sleep(0.01)
        self.kill_all()
        pytest.fail(f"processes of the run still alive 10 s after the stop: {left}")

    def kill_all(self) -> None:
        for pid, started in {**self.tree, **_descendants(self.process.pid)}.items():
            if _alive(pid, started):
                os.kill(pid, signal.SIGKILL)
        self.process.kill()
        self.process.wait()


# -- convert ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def torch_tree() -> dict[str, bytes]:
    """Torch files large enough for the pool, and runs long enough to be stopped midway."""
    return {
        f"m{i:03d}.py": (
            HEAD + "".join(BLOCK.format(i=i, k=k) for k in range(8))
        ).encode()
        for i in range(FILES)
    }


def _full_conversion(tmp_path: Path, originals: dict[str, bytes], names: list[str]):
    """The uninterrupted conversion of ``names`` (each file converts on its own)."""
    copy, out = tmp_path / "copy", tmp_path / "converted"
    copy.mkdir()
    for name in names:
        (copy / name).write_bytes(originals[name])
    result = CliRunner().invoke(main, ["convert", str(copy), "-o", str(out), "-q"])
    assert result.exit_code == 0, result.output
    return {name: (out / name).read_bytes() for name in names}


STOPS = {
    "SIGTERM": (signal.SIGTERM, False, "torch2ms: terminated"),
    "SIGHUP": (signal.SIGHUP, False, "torch2ms: hangup"),
    "ctrl-c": (signal.SIGINT, True, "torch2ms: interrupted"),
    "SIGKILL": (signal.SIGKILL, False, None),
}


@pytest.mark.parametrize("stop", list(STOPS))
def test_a_stopped_convert_leaves_no_process_and_no_torn_file(
    tmp_path: Path, torch_tree: dict[str, bytes], stop: str
) -> None:
    signum, group, line = STOPS[stop]
    src = tmp_path / "src"
    src.mkdir()
    for name, data in torch_tree.items():
        (src / name).write_bytes(data)

    def busy(tree: dict[int, str]) -> bool:
        if len(tree) < 2:
            return False
        return any(
            (src / name).read_bytes() != data for name, data in torch_tree.items()
        )

    run = Run("convert", str(src), "--in-place", "-j", "2", "-q")
    run.wait_until(busy)
    seconds = run.stop(signum, group)
    assert len(run.tree) == 2  # the two workers, gone with the main process
    assert seconds < LEFT_WITHIN
    if line is None:
        assert run.process.returncode == -signal.SIGKILL
    else:
        assert run.process.returncode == 128 + signum
        assert run.process.stderr.read().decode() == line + "\n"
    now = {path.name: path.read_bytes() for path in src.iterdir()}
    assert sorted(now) == sorted(torch_tree)  # no temp file left either
    changed = [name for name in torch_tree if now[name] != torch_tree[name]]
    assert 1 <= len(changed) < len(torch_tree)
    expected = _full_conversion(tmp_path, torch_tree, changed)
    for name in changed:
        assert now[name] == expected[name], name


# -- verify and run: a script whose child sleeps ------------------------------------------------

SLEEPER = """import subprocess
import time

import torch

child = subprocess.Popen(["sleep", "60"])
x = torch.ones(3)
print("x", x.sum().item())
time.sleep(60)
"""


def _runs_sleep(tree: dict[int, str]) -> bool:
    for pid in tree:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                if handle.read().split(b"\0")[0] == b"sleep":
                    return True
        except OSError:
            continue
    return False


VERIFY_STOPS = {k: STOPS[k] for k in ("SIGTERM", "ctrl-c", "SIGKILL")}


@pytest.mark.parametrize("stop", list(VERIFY_STOPS))
def test_a_stopped_verify_leaves_no_process(tmp_path: Path, stop: str) -> None:
    signum, group, line = VERIFY_STOPS[stop]
    (tmp_path / "sleeper.py").write_text(SLEEPER)
    run = Run("verify", "sleeper.py", "-j", "1", cwd=tmp_path)
    run.wait_until(_runs_sleep)
    seconds = run.stop(signum, group)
    assert seconds < LEFT_WITHIN
    if line is not None:
        assert run.process.returncode == 128 + signum
        assert run.process.stderr.read().decode() == line + "\n"


@pytest.mark.parametrize("stop", ["SIGTERM", "ctrl-c"])
def test_a_stopped_run_ends_the_scripts_children(tmp_path: Path, stop: str) -> None:
    signum, group, line = STOPS[stop]
    (tmp_path / "sleeper.py").write_text(SLEEPER)
    run = Run("run", "sleeper.py", cwd=tmp_path)
    run.wait_until(_runs_sleep)
    assert run.stop(signum, group) < LEFT_WITHIN
    assert run.process.returncode == 128 + signum
    assert run.process.stderr.read().decode() == line + "\n"


# -- the watch for platforms without a parent death signal -------------------------------------


WATCHED = """import os, sys, time
from torch2ms.migrator.lifetime import watch_owner
if os.fork() == 0:
    watch_owner(os.getppid())
    time.sleep(60)
    os._exit(0)
time.sleep(60)
"""


def test_the_owner_watch_ends_a_worker_whose_parent_died() -> None:
    parent = subprocess.Popen([sys.executable, "-c", WATCHED])
    try:
        deadline = time.monotonic() + 30
        while not (tree := _descendants(parent.pid)) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(tree) == 1
        time.sleep(
            0.3
        )  # most often the watch is running by now; if not, it starts orphaned
        parent.kill()
        parent.wait()
        deadline = time.monotonic() + LEFT_WITHIN
        while any(_alive(p, s) for p, s in tree.items()):
            assert time.monotonic() < deadline, "the watched child outlived its parent"
            time.sleep(0.02)
    finally:
        for pid, started in _descendants(parent.pid).items():
            if _alive(pid, started):
                os.kill(pid, signal.SIGKILL)
        if parent.poll() is None:
            parent.kill()


# -- a worker finishes the file it is writing, and an orphan writes nothing ----------------------

HELD = """import os, signal, sys, time
from torch2ms.migrator.lifetime import bind_worker, writing
bind_worker(os.getppid())
if sys.argv[1] == "writing":
    with writing():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.2)
        open(sys.argv[2], "w").write("finished")
open(sys.argv[2], "a").write(" and went on")
os.kill(os.getpid(), signal.SIGTERM)
time.sleep(10)
"""


@pytest.mark.parametrize("where", ["writing", "converting"])
def test_a_terminated_worker_finishes_its_write_and_nothing_else(
    tmp_path: Path, where: str
) -> None:
    marker = tmp_path / "marker"
    done = subprocess.run(
        [sys.executable, "-c", HELD, where, str(marker)], timeout=60, check=False
    )
    if where == "writing":  # held back until the write was done, then gone
        assert done.returncode == 128 + signal.SIGTERM
        assert marker.read_text() == "finished"
    else:  # gone at once
        assert done.returncode == -signal.SIGTERM
        assert marker.read_text() == " and went on"


ORPHAN = """import os, sys, time
from torch2ms.migrator.lifetime import bind_worker, check_parent, writing
from torch2ms.migrator.sources import atomic_write
target, ready = sys.argv[1], sys.argv[2]
if os.fork() == 0:
    parent = os.getppid()
    bind_worker(parent)
    with writing():
        open(ready, "w").close()
        while os.getppid() == parent:  # the parent's death is held back until the write ends
            time.sleep(0.01)
        atomic_write(target, b"converted", None, check_parent)
    os._exit(0)
time.sleep(60)
"""


def test_a_worker_whose_parent_died_abandons_its_write(tmp_path: Path) -> None:
    target, ready = tmp_path / "m.py", tmp_path / "ready"
    target.write_bytes(b"original")
    parent = subprocess.Popen(
        [sys.executable, "-c", ORPHAN, str(target), str(ready)],
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not ready.exists():
            assert time.monotonic() < deadline, "the worker never started writing"
            time.sleep(0.01)
        tree = _descendants(parent.pid)
        parent.kill()  # the worker, mid-write, is now an orphan
        parent.wait()
        deadline = time.monotonic() + LEFT_WITHIN
        while any(_alive(p, s) for p, s in tree.items()):
            assert time.monotonic() < deadline, "the orphan outlived its parent"
            time.sleep(0.02)
    finally:
        for pid, started in _descendants(parent.pid).items():
            if _alive(pid, started):
                os.kill(pid, signal.SIGKILL)
    assert target.read_bytes() == b"original"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.py", "ready"]
