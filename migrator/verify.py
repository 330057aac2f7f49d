"""``torch2ms verify``: run an original and its conversion, each in its own process, and compare.

Each side runs ``python -m torch2ms.migrator.observe`` under a backend (``shim``: the NumPy facades;
``real``: the installed torch and MindSpore) with a timeout. The original runs first; on the real
backend it records its modules' initial parameters, which the conversion's cells receive at their
first call (the frameworks draw different random numbers). Pairs run in parallel, one worker
process per job, each converting its pair and starting the two sides.

Public API: ``verify_files``, ``verify_pairs``, ``verify_path``, ``summarize``.
"""

from __future__ import annotations

import ast
import importlib.util
import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from .compare import Comparison, Difference, compare_observations
from .corpus import Pair, convert_pair, discover, golden_difference, read_text
from .observe import observe, read_observation
from .printed import parse_output

DEFAULT_TIMEOUT = {"shim": 120.0, "real": 900.0}
REAL_FRAMEWORKS = ("torch", "mindspore")
OBSERVATION = "observation.npz"
# Fewer threads per side: the sides of several pairs run at once on few cores.
_CHILD_ENV = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "GLOG_v": "3", "PYTHONHASHSEED": "0"}


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


def missing_frameworks() -> list[str]:
    return [name for name in REAL_FRAMEWORKS if importlib.util.find_spec(name) is None]


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    for key, value in _CHILD_ENV.items():
        env.setdefault(key, value)
    return env


def run_side(script: str, backend: str, workdir: str, timeout: float, extra: tuple[str, ...] = (), paths: tuple[str, ...] = ()) -> SideRun:
    """Run ``script`` under the observation harness in a process of its own."""
    os.makedirs(workdir, exist_ok=True)
    if _ZYGOTE.backend == backend:
        return _fork_side(script, backend, workdir, timeout, extra, paths)
    out = os.path.join(workdir, OBSERVATION)
    command = [sys.executable, "-m", "torch2ms.migrator.observe", "--backend", backend, "--out", out, *extra]
    for path in paths:
        command += ["--path", path]
    command.append(script)
    start = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=_child_env(), start_new_session=True
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        return SideRun("timeout", {}, {}, stdout.decode(errors="replace"), stderr.decode(errors="replace"), time.perf_counter() - start)
    return _finish_side(out, stdout.decode(errors="replace"), stderr.decode(errors="replace"), time.perf_counter() - start)


def _finish_side(out: str, stdout: str, stderr: str, seconds: float) -> SideRun:
    if not os.path.exists(out):
        return SideRun("crashed", {}, {}, stdout, stderr, seconds)
    meta, arrays = read_observation(out)
    meta["records"] = [record.to_dict() for record in parse_output(stdout)]
    return SideRun(meta.get("status", "ok"), meta, arrays, stdout, stderr, seconds)


class _Zygote:
    """A worker process with the backend's frameworks imported once; each side is a fork of it.

    Starting Python and importing the frameworks (seconds for MindSpore, a quarter of a second for
    NumPy and the facades) costs far more than running a corpus script, so sides are forked from a
    warm process, which gives each one fresh module state. ``TORCH2MS_VERIFY_FORK=0`` turns this
    off: every side is then a new interpreter."""

    PRELOAD = {
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
        if self.backend is not None or not hasattr(os, "fork") or os.environ.get("TORCH2MS_VERIFY_FORK") == "0":
            return
        for key, value in _CHILD_ENV.items():
            os.environ.setdefault(key, value)
        from ..shims import importer

        importer.install(backend)
        for name in self.PRELOAD[backend]:
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001, S112 - the script imports it again and reports what is missing
                continue
        self.backend = backend


_ZYGOTE = _Zygote()


def _fork_side(script: str, backend: str, workdir: str, timeout: float, extra: tuple[str, ...], paths: tuple[str, ...]) -> SideRun:
    out = os.path.join(workdir, OBSERVATION)
    stdout_path, stderr_path = os.path.join(workdir, "stdout.txt"), os.path.join(workdir, "stderr.txt")
    options = dict(zip(extra[::2], extra[1::2]))
    sys.stdout.flush()
    sys.stderr.flush()
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # the side: never returns
        code = 1
        try:
            os.setsid()
            os.chdir(workdir)
            for fd, path in ((1, stdout_path), (2, stderr_path)):
                os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), fd)
            code = observe(script, out, backend, options.get("--record-init"), options.get("--inject-init"), paths, install=False)
        except BaseException:
            traceback.print_exc()
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
    status = "ok"
    while os.waitpid(pid, os.WNOHANG) == (0, 0):
        if time.perf_counter() - start > timeout:
            os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            status = "timeout"
            break
        time.sleep(0.002)
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


# -- where a difference comes from ----------------------------------------------------------------


def _source_line(source: str, difference: Difference) -> int | None:
    """The line of the original that produced the quantity: the print of its label, or the module's assignment."""
    needle = difference.subject
    if not needle:
        return None
    lines = source.splitlines()
    if difference.kind == "printed":
        for quote in ('"', "'"):
            for number, text in enumerate(lines, start=1):
                if "print" in text and f"{quote}{needle}" in text:
                    return number
        return None
    for number, text in enumerate(lines, start=1):
        if text.lstrip().startswith(f"{needle} =") or text.lstrip().startswith(f"{needle}="):
            return number
    return None


def _enclosing_range(source: str, line: int) -> tuple[int, int]:
    """The lines of the top-level statement (function, loop ...) that holds ``line``."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return line, line
    for node in tree.body:
        end = getattr(node, "end_lineno", node.lineno)
        if node.lineno <= line <= end:
            return node.lineno, end
    return line, line


def _origin(source: str, difference: Difference, findings: list) -> dict:
    line = _source_line(source, difference)
    if line is None:
        return {}
    start, end = _enclosing_range(source, line)
    near = [f"line {f.line}: {f.rule} {f.message}" for f in findings if start <= f.line <= end]
    return {"where": f"original.py:{line}", "findings_near": near}


# -- one pair -------------------------------------------------------------------------------------


def _shim_gap(side: SideRun) -> bool:
    return "shims:" in side.error and ("NotImplementedError" in side.error or "not implemented" in side.error)


def _transfer_init(pair: Pair, backend: str) -> bool:
    return bool(pair.meta.get("transfer_init", backend == "real"))


def verify_pair(pair: Pair, backend: str = "shim", rtol: float | None = None, atol: float | None = None, timeout: float | None = None) -> dict:
    """Convert, run both sides, compare. The report's status is pass, fail or error (see the CLI contract).

    A golden mismatch (expected.py is not what the converter produces) fails the pair whatever the numbers say."""
    start = time.perf_counter()
    report: dict = {"name": pair.name, "status": "pass", "backend": backend, "rules": [], "findings": [], "first_difference": None, "compared": 0}
    golden: list[str] = []

    def finish(status: str, reason: str | None = None) -> dict:
        reasons = [f"golden mismatch: {golden[0]}"] if golden else []
        reasons += [reason] if reason else []
        report["status"] = "fail" if golden else status
        if reasons:
            report["reason"] = "; ".join(reasons)
        report["seconds"] = round(time.perf_counter() - start, 3)
        return report

    if backend == "real" and missing_frameworks():
        return finish("error", f"the real backend needs {' and '.join(missing_frameworks())} installed (pip install 'torch2ms[test]')")
    try:
        result = convert_pair(pair)
    except Exception as error:  # the rules are reported when they can be; a given conversion still runs
        if pair.converted is None:
            return finish("error", f"the converter failed: {type(error).__name__}: {error}")
        result = None
        report["notes"] = [f"the converter failed on the original ({type(error).__name__}: {error}); rules unknown"]
    findings = result.findings if result is not None else []
    if result is not None:
        report["rules"] = list(result.rules_applied)
        report["findings"] = [f"line {f.line}: {f.rule} {f.message}" for f in findings]
        if result.failed:
            return finish("error", "the original could not be parsed")
        if pair.expected is not None:
            difference = golden_difference(read_text(pair.expected), result.code)
            report["golden"] = "match" if difference is None else "mismatch"
            golden += [difference] if difference else []

    transfer = _transfer_init(pair, backend)
    original_side, converted_side = _run_both(pair, result.code if result is not None else "", backend, timeout or DEFAULT_TIMEOUT[backend], transfer)
    report["sides_seconds"] = [round(original_side.seconds, 3), round(converted_side.seconds, 3)]
    if original_side.status != "ok":
        return finish("error", f"the original failed: {original_side.error}")
    if converted_side.status != "ok":
        if converted_side.status == "timeout" or _shim_gap(converted_side):
            return finish("error", f"the conversion could not be run: {converted_side.error}")
        return finish("fail", f"the conversion failed: {converted_side.error}")

    comparison: Comparison = compare_observations(
        (original_side.meta, original_side.arrays),
        (converted_side.meta, converted_side.arrays),
        pair.rtol if rtol is None else rtol,
        pair.atol if atol is None else atol,
        pair.ignored_labels,
    )
    report["compared"] = comparison.compared
    report["differences"] = len(comparison.differences)
    if comparison.notes:
        report["notes"] = report.get("notes", []) + comparison.notes
    if transfer:
        report["init"] = converted_side.meta.get("init", {})
    first = comparison.first
    if first is not None:
        report["first_difference"] = {**first.to_dict(), **_origin(read_text(pair.original), first, findings)}
        init_problems = converted_side.meta.get("init", {}).get("problems", [])
        if init_problems:
            return finish("error", f"initial state not transferable: {'; '.join(init_problems)}")
        return finish("fail", f"{first.quantity} differs")
    if comparison.compared == 0:
        return finish("error", "nothing to compare: print labelled numbers or keep models and tensors at top level")
    return finish("pass")


def _run_both(pair: Pair, converted_code: str, backend: str, timeout: float, transfer: bool) -> tuple[SideRun, SideRun]:
    """The original, then the conversion (given, or ``converted_code`` written to a temporary file)."""
    with tempfile.TemporaryDirectory(prefix="torch2ms-verify-") as workdir:
        converted = pair.converted
        if converted is None:
            converted = os.path.join(workdir, "converted.py")
            with open(converted, "w", encoding="utf-8") as handle:
                handle.write(converted_code)
        init = os.path.join(workdir, "init.npz")
        original_side = run_side(pair.original, backend, os.path.join(workdir, "original"), timeout, ("--record-init", init) if transfer else ())
        if original_side.status != "ok":
            return original_side, SideRun("skipped", {}, {}, "", "", 0.0)
        inject = ("--inject-init", init) if transfer and os.path.exists(init) else ()
        paths = (os.path.dirname(os.path.abspath(pair.original)),)
        return original_side, run_side(converted, backend, os.path.join(workdir, "converted"), timeout, inject, paths)


# -- many pairs -----------------------------------------------------------------------------------


def _worker_init(backend: str) -> None:
    _ZYGOTE.prepare(backend)


def _verify_pair_task(args: tuple) -> dict:
    pair_data, backend, rtol, atol, timeout = args
    pair = Pair.from_dict(pair_data)
    try:
        return verify_pair(pair, backend, rtol, atol, timeout)
    except Exception as error:  # a verifier bug is reported on its pair, the other pairs go on
        return {"name": pair.name, "status": "error", "reason": f"internal error: {type(error).__name__}: {error}", "rules": [], "first_difference": None, "compared": 0, "seconds": 0.0}


def verify_pairs(
    pairs: list[Pair], backend: str = "shim", rtol: float | None = None, atol: float | None = None, jobs: int | None = None, timeout: float | None = None
) -> list[dict]:
    """Verify pairs in ``jobs`` worker processes (default: all cores); reports in pair order.

    The workers, not this process, load the shims, so the caller's ``torch``/``mindspore`` stay real."""
    tasks = [(pair.to_dict(), backend, rtol, atol, timeout) for pair in pairs]
    if not tasks:
        return []
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(tasks)))
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    if backend == "real" and missing_frameworks():
        return [_verify_pair_task(task) for task in tasks]  # each reports the missing framework
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_worker_init, initargs=(backend,)) as pool:
        return list(pool.map(_verify_pair_task, tasks, chunksize=1))


def verify_files(
    pairs: list[tuple[str, str]],
    backend: str = "shim",
    rtol: float | None = None,
    atol: float | None = None,
    jobs: int | None = None,
    timeout: float | None = None,
) -> list[dict]:
    """Verify each (original_path, converted_path): one report dict per pair, in order (see ``verify_pair``)."""
    items = [Pair(os.path.relpath(original), os.path.abspath(original), os.path.abspath(converted)) for original, converted in pairs]
    return verify_pairs(items, backend, rtol, atol, jobs, timeout)


def verify_path(
    path: str, converted: str | None = None, backend: str = "shim", rtol: float | None = None, atol: float | None = None, jobs: int | None = None, timeout: float | None = None
) -> tuple[list[dict], list[str]]:
    """Verify a corpus folder, a pair folder or one original file; returns (reports, skipped pair names)."""
    if os.path.isdir(path):
        pairs = discover(path)
        if converted is not None and len(pairs) == 1:
            pairs[0].converted = os.path.abspath(converted)
            pairs[0].expected = None
    else:
        pairs = [Pair(os.path.basename(path), os.path.abspath(path), os.path.abspath(converted) if converted else None)]
    runnable = [pair for pair in pairs if backend in pair.backends]
    skipped = [pair.name for pair in pairs if backend not in pair.backends]
    return verify_pairs(runnable, backend, rtol, atol, jobs, timeout), skipped


def summarize(reports: list[dict]) -> dict[str, int]:
    counts = {"pass": 0, "fail": 0, "error": 0}
    for report in reports:
        counts[report["status"]] = counts.get(report["status"], 0) + 1
    return counts
