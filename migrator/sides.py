"""Run one side of a verification (an original or its conversion) in a process of its own.

A side is ``python -m torch2ms.migrator.observe`` under a backend, with a timeout; or, inside a
verify worker, a fork of that worker once it has imported the backend's frameworks (a zygote):
starting Python and importing MindSpore costs seconds, running a corpus script milliseconds.
"""

from __future__ import annotations

import importlib
import os
import signal
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass
from typing import ClassVar

from .lifetime import bind_forked_child, child_preexec
from .observe import observe, read_observation
from .printed import parse_output

OBSERVATION = "observation.npz"
# Fewer threads per side: the sides of several pairs run at once on few cores.
_CHILD_ENV = {
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "GLOG_v": "3",
    "PYTHONHASHSEED": "0",
}


@dataclass
class SideRun:
    status: str  # ok | raised | timeout | crashed
    meta: dict
    arrays: dict
    stdout: str
    stderr: str
    seconds: float

    @property
    def error(self) -> str:
        if self.status == "timeout":
            return f"timed out after {self.seconds:.0f} s"
        if self.status == "crashed":
            tail = self.stderr.strip().splitlines()[-3:]
            return "the process died: " + (" | ".join(tail) or "no output")
        return self.meta.get("error", "")


class _Running:
    side: int | None = None  # pid of the side being waited for; it leads its own group


def _end_group(pid: int) -> None:
    """Kill what a finished side left running in its group (nothing outlives a side)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def kill_running() -> None:
    """Kill the side this process waits for, with whatever it started (its process group)."""
    pid = _Running.side
    if pid is None:
        return
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:  # not yet its own group, or already gone
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    for key, value in _CHILD_ENV.items():
        env.setdefault(key, value)
    return env


def run_side(
    script: str,
    backend: str,
    workdir: str,
    timeout: float,
    extra: tuple[str, ...] = (),
    paths: tuple[str, ...] = (),
) -> SideRun:
    """Run ``script`` under the observation harness in a process of its own."""
    os.makedirs(workdir, exist_ok=True)
    if ZYGOTE.backend == backend:
        return _fork_side(script, backend, workdir, timeout, extra, paths)
    out = os.path.join(workdir, OBSERVATION)
    command = [
        sys.executable,
        "-m",
        "torch2ms.migrator.observe",
        "--backend",
        backend,
        "--out",
        out,
        *extra,
    ]
    for path in paths:
        command += ["--path", path]
    command.append(script)
    start = time.perf_counter()
    process = subprocess.Popen(
        command,
        cwd=workdir,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        env=_child_env(),
        start_new_session=True,
        # only ctypes' prctl and getppid run in the child: nothing a thread could hold a lock of
        preexec_fn=child_preexec(),  # noqa: PLW1509
    )
    _Running.side = process.pid
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_running()
        stdout, stderr = process.communicate()
        return SideRun(
            "timeout",
            {},
            {},
            stdout.decode(errors="replace"),
            stderr.decode(errors="replace"),
            time.perf_counter() - start,
        )
    except BaseException:  # stopped while waiting: the side goes too
        kill_running()
        process.wait()
        raise
    finally:
        _Running.side = None
        _end_group(process.pid)
    return _finish_side(
        out,
        stdout.decode(errors="replace"),
        stderr.decode(errors="replace"),
        time.perf_counter() - start,
    )


def _finish_side(out: str, stdout: str, stderr: str, seconds: float) -> SideRun:
    if not os.path.exists(out):
        return SideRun("crashed", {}, {}, stdout, stderr, seconds)
    meta, arrays = read_observation(out)
    meta["records"] = [record.to_dict() for record in parse_output(stdout)]
    return SideRun(meta.get("status", "ok"), meta, arrays, stdout, stderr, seconds)


class Zygote:
    """A worker process with the backend's frameworks imported once; each side is a fork of it.

    Starting Python and importing the frameworks (seconds for MindSpore, a quarter of a second for
    NumPy and the facades) costs far more than running a corpus script, so sides are forked from a
    warm process, which gives each one fresh module state. ``TORCH2MS_VERIFY_FORK=0`` turns this
    off: every side is then a new interpreter."""

    PRELOAD: ClassVar[dict[str, tuple[str, ...]]] = {
        "shim": (
            "torch", "torch.nn", "torch.nn.functional", "torch.optim", "torch.utils.data",
            "mindspore", "mindspore.nn", "mindspore.ops", "mindspore.experimental.optim", "mindspore.dataset", "mindspore.amp",
        ),
        # torch.optim imports dynamo (and sympy) at the first step: seconds, paid once here.
        "real": ("torch", "torch.nn", "torch.nn.functional", "torch.optim", "torch._dynamo", "mindspore", "mindspore.nn", "mindspore.ops", "mindspore.experimental.optim"),
    }  # fmt: skip

    def __init__(self) -> None:
        self.backend: str | None = None

    def prepare(self, backend: str) -> None:
        if (
            self.backend is not None
            or not hasattr(os, "fork")
            or os.environ.get("TORCH2MS_VERIFY_FORK") == "0"
        ):
            return
        for key, value in _CHILD_ENV.items():
            os.environ.setdefault(key, value)
        from ..shims import importer

        importer.install(backend)
        for name in self.PRELOAD[backend]:
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001, S112 - the script imports it again and reports what fails
                continue
        self.backend = backend


ZYGOTE = Zygote()


def _fork_side(
    script: str,
    backend: str,
    workdir: str,
    timeout: float,
    extra: tuple[str, ...],
    paths: tuple[str, ...],
) -> SideRun:
    out = os.path.join(workdir, OBSERVATION)
    stdout_path, stderr_path = (
        os.path.join(workdir, "stdout.txt"),
        os.path.join(workdir, "stderr.txt"),
    )
    options = dict(zip(extra[::2], extra[1::2]))
    sys.stdout.flush()
    sys.stderr.flush()
    start = time.perf_counter()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the side: never returns
        code = 1
        try:
            os.setsid()
            bind_forked_child(parent)
            os.chdir(workdir)
            for fd, path in ((1, stdout_path), (2, stderr_path)):
                os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), fd)
            code = observe(
                script,
                out,
                backend,
                options.get("--record-init"),
                options.get("--inject-init"),
                paths,
                install=False,
            )
        except BaseException:  # noqa: BLE001 - the side reports its own failure on stderr
            traceback.print_exc()
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
    status = "ok"
    _Running.side = pid
    try:
        while os.waitpid(pid, os.WNOHANG) == (0, 0):
            if time.perf_counter() - start > timeout:
                kill_running()
                os.waitpid(pid, 0)
                status = "timeout"
                break
            time.sleep(0.002)
    except BaseException:  # stopped while waiting: the side goes too
        kill_running()
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:  # reaped just before the stop
            pass
        raise
    finally:
        _Running.side = None
        _end_group(pid)
    seconds = time.perf_counter() - start
    stdout, stderr = (_read(path) for path in (stdout_path, stderr_path))
    if status == "timeout":
        return SideRun("timeout", {}, {}, stdout, stderr, seconds)
    return _finish_side(out, stdout, stderr, seconds)


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""
