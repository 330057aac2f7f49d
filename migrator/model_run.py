"""Run ``model_side.py`` under a framework's interpreter: a process of its own, with a timeout.

The side leads a session of its own (what it starts dies with it) and is killed when torch2ms is
stopped or dies. Its answer is a JSON file; a side that dies without writing one is reported with
the tail of its stderr.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

import numpy as np

from .lifetime import child_preexec

SIDE_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "model_side.py")
_CHILD_ENV = {"GLOG_v": "3", "PYTHONHASHSEED": "0", "TF_CPP_MIN_LOG_LEVEL": "3"}


@dataclass
class SideResult:
    framework: str
    status: str  # ok | error | misfit | crashed | timeout
    data: dict = field(default_factory=dict)
    stderr: str = ""

    @property
    def built(self) -> bool:
        return bool(self.data.get("built"))

    @property
    def error(self) -> str:
        if self.status in ("crashed", "timeout"):
            tail = " | ".join(self.stderr.strip().splitlines()[-3:])
            return f"the {self.framework} process {self.status}: {tail or 'no output'}"
        return self.data.get("error", "")


def run_model_side(
    python: str, request: dict, work: str, timeout: float = 1800
) -> SideResult:
    """Run one side with ``request`` (see model_side.py); ``python`` is the interpreter."""
    framework = request["framework"]
    request = {**request, "result": os.path.join(work, f"{framework}.result.json")}
    path = os.path.join(work, f"{framework}.request.json")
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(request, handle)
    env = {**os.environ, **{k: os.environ.get(k, v) for k, v in _CHILD_ENV.items()}}
    with tempfile.TemporaryFile() as err:
        process = subprocess.Popen(
            [python, SIDE_SCRIPT, path],
            stdout=err,
            stderr=err,
            stdin=subprocess.DEVNULL,
            env=env,
            cwd=work,
            start_new_session=True,
            preexec_fn=child_preexec(),  # noqa: PLW1509 -- prctl only
        )
        status = None
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            status = "timeout"
        finally:
            _kill_group(process.pid)
            process.wait()
        err.seek(0)
        stderr = err.read().decode(errors="replace")
    if status is None and os.path.exists(request["result"]):
        with open(request["result"], encoding="utf-8") as handle:
            data = json.load(handle)
        return SideResult(framework, data.get("status", "ok"), data, stderr)
    return SideResult(framework, status or "crashed", {}, stderr)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def default_python(framework: str) -> str:
    """The interpreter for a side: ``TORCH2MS_TORCH_PYTHON`` / ``TORCH2MS_MINDSPORE_PYTHON``, else
    this one."""
    return os.environ.get(f"TORCH2MS_{framework.upper()}_PYTHON") or sys.executable


# -- inputs -----------------------------------------------------------------------------------
DTYPES = ("float32", "float64", "float16", "int64", "int32", "int8", "uint8", "bool")


def parse_input(spec: str, index: int, rng: np.random.Generator) -> np.ndarray:
    """An input from ``SHAPE[:DTYPE[:LOW:HIGH]]`` (``2x3x224x224``, ``2x16:int64:0:1000``) or a
    ``.npy`` file. Floats are standard normal, integers uniform in [LOW, HIGH) (default [0, 2)),
    all drawn from one generator seeded 0."""
    if spec.endswith(".npy"):
        return np.load(spec)
    parts = spec.split(":")
    try:
        shape = tuple(int(d) for d in parts[0].lower().split("x") if d)
    except ValueError:
        raise ValueError(
            f"input {index}: {spec!r} is not SHAPE[:DTYPE[:LOW:HIGH]] or a .npy"
        ) from None
    dtype = parts[1] if len(parts) > 1 else "float32"
    if dtype not in DTYPES:
        raise ValueError(
            f"input {index}: dtype {dtype!r} is not one of {', '.join(DTYPES)}"
        )
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.startswith("float"):
        return rng.standard_normal(shape).astype(dtype)
    low, high = (int(parts[2]), int(parts[3])) if len(parts) > 3 else (0, 2)
    return rng.integers(low, high, shape).astype(dtype)


def write_inputs(specs: list[str], path: str) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    arrays = [parse_input(spec, i, rng) for i, spec in enumerate(specs)]
    np.savez(path, **{f"arg{i}": a for i, a in enumerate(arrays)})
    return arrays


__all__ = [
    "SideResult",
    "default_python",
    "parse_input",
    "run_model_side",
    "write_inputs",
]
