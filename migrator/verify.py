"""``torch2ms verify``: run an original and its conversion, each in its own process, and compare.

Each side runs the observation harness (migrator/observe.py) under a backend (``shim``: the NumPy
facades; ``real``: the installed torch and MindSpore) in a process of its own with a timeout
(migrator/sides.py). The original runs first; on the real
backend it records its modules' initial parameters, which the conversion's cells receive at their
first call (the frameworks draw different random numbers). Pairs run in parallel, one worker
process per job, each converting its pair and starting the two sides.

Public API: ``verify_files``, ``verify_pairs``, ``verify_path``, ``run_verify`` (the hook of
``torch2ms convert --verify``), ``summarize``.
"""

from __future__ import annotations

import ast
import importlib.util
import multiprocessing
import os
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor

from .companion import write_companion
from .compare import Comparison, Difference, compare_observations
from .corpus import (
    Pair,
    convert_pair,
    discover,
    golden_difference,
    read_text,
    tree_goldens,
)
from .lifetime import bind_worker, stop_pool
from .sides import ZYGOTE, SideRun, kill_running, run_side

DEFAULT_TIMEOUT = {"shim": 120.0, "real": 900.0}
REAL_FRAMEWORKS = ("torch", "mindspore")


def missing_frameworks() -> list[str]:
    return [name for name in REAL_FRAMEWORKS if importlib.util.find_spec(name) is None]


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
        if text.lstrip().startswith(f"{needle} =") or text.lstrip().startswith(
            f"{needle}="
        ):
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
    near = [
        f"line {f.line}: {f.rule} {f.message}"
        for f in findings
        if start <= f.line <= end
    ]
    return {"where": f"original.py:{line}", "findings_near": near}


# -- one pair -------------------------------------------------------------------------------------


def _shim_gap(side: SideRun) -> bool:
    return "shims:" in side.error and (
        "NotImplementedError" in side.error or "not implemented" in side.error
    )


def _transfer_init(pair: Pair, backend: str) -> bool:
    return bool(pair.meta.get("transfer_init", backend == "real"))


def verify_pair(
    pair: Pair,
    backend: str = "shim",
    rtol: float | None = None,
    atol: float | None = None,
    timeout: float | None = None,
) -> dict:
    """Convert, run both sides, compare. The report's status is pass, fail or error (see the CLI contract).

    A golden mismatch (expected.py is not what the converter produces) fails the pair whatever the numbers say."""
    start = time.perf_counter()
    report: dict = {
        "name": pair.name,
        "status": "pass",
        "backend": backend,
        "rules": [],
        "findings": [],
        "first_difference": None,
        "compared": 0,
    }
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
        return finish(
            "error",
            f"the real backend needs {' and '.join(missing_frameworks())} installed (pip install 'torch2ms[test]')",
        )
    try:
        result = convert_pair(pair)
    except Exception as error:  # noqa: BLE001 - a given conversion still runs without the rules
        if pair.converted is None:
            return finish(
                "error", f"the converter failed: {type(error).__name__}: {error}"
            )
        result = None
        report["notes"] = [
            f"the converter failed on the original ({type(error).__name__}: {error}); rules unknown"
        ]
    findings = result.findings if result is not None else []
    if result is not None:
        report["rules"] = list(result.rules_applied)
        report["findings"] = [f"line {f.line}: {f.rule} {f.message}" for f in findings]
        if result.failed:
            return finish("error", "the original could not be parsed")
        if pair.tree is not None:
            differences = tree_goldens(pair)
            report["golden"] = "mismatch" if differences else "match"
            golden += differences
        elif pair.expected is not None:
            difference = golden_difference(read_text(pair.expected), result.code)
            report["golden"] = "match" if difference is None else "mismatch"
            golden += [difference] if difference else []

    transfer = _transfer_init(pair, backend)
    original_side, converted_side = _run_both(
        pair,
        result.code if result is not None else "",
        backend,
        timeout or DEFAULT_TIMEOUT[backend],
        transfer,
        result.companion if result is not None else frozenset(),
    )
    report["sides_seconds"] = [
        round(original_side.seconds, 3),
        round(converted_side.seconds, 3),
    ]
    if original_side.status != "ok":
        return finish("error", f"the original failed: {original_side.error}")
    if converted_side.status != "ok":
        if converted_side.status == "timeout" or _shim_gap(converted_side):
            return finish(
                "error", f"the conversion could not be run: {converted_side.error}"
            )
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
        report["first_difference"] = {
            **first.to_dict(),
            **_origin(read_text(pair.original), first, findings),
        }
        init_problems = converted_side.meta.get("init", {}).get("problems", [])
        if init_problems:
            return finish(
                "error", f"initial state not transferable: {'; '.join(init_problems)}"
            )
        return finish("fail", f"{first.quantity} differs")
    if comparison.compared == 0:
        return finish(
            "error",
            "nothing to compare: print labelled numbers or keep models and tensors at top level",
        )
    return finish("pass")


def _run_both(
    pair: Pair,
    converted_code: str,
    backend: str,
    timeout: float,
    transfer: bool,
    companion: frozenset[str] = frozenset(),
) -> tuple[SideRun, SideRun]:
    """The original, then the conversion (given, or ``converted_code`` written to a temporary file,
    with the companion module it imports beside it)."""
    with tempfile.TemporaryDirectory(prefix="torch2ms-verify-") as workdir:
        converted = pair.converted
        if pair.tree is not None:
            # A package pair: its tree is converted as
            # `torch2ms convert` converts it (each package gets its companion beside it).
            converted = _converted_tree(pair, os.path.join(workdir, "tree"))
        elif converted is None or companion:
            # A conversion that imports the companion runs beside it, in the work folder.
            if converted is not None:
                converted_code = read_text(converted)
            converted = os.path.join(workdir, "converted.py")
            with open(converted, "w", encoding="utf-8") as handle:
                handle.write(converted_code)
            if companion:
                write_companion(workdir, companion)
        init = os.path.join(workdir, "init.npz")
        original_side = run_side(
            pair.original,
            backend,
            os.path.join(workdir, "original"),
            timeout,
            ("--record-init", init) if transfer else (),
        )
        if original_side.status != "ok":
            return original_side, SideRun("skipped", {}, {}, "", "", 0.0)
        inject = ("--inject-init", init) if transfer and os.path.exists(init) else ()
        # The conversion's own folder first: its companion module is there.
        paths = (
            os.path.dirname(os.path.abspath(converted)),
            os.path.dirname(os.path.abspath(pair.original)),
        )
        return original_side, run_side(
            converted,
            backend,
            os.path.join(workdir, "converted"),
            timeout,
            inject,
            paths,
        )


def _converted_tree(pair: Pair, folder: str) -> str:
    """The package pair's original tree converted into ``folder``; the path of its main script."""
    from .runner import plan, run

    run(plan([pair.tree], folder), pair.options, jobs=1)
    return os.path.join(folder, os.path.relpath(pair.original, pair.tree))


# -- many pairs -----------------------------------------------------------------------------------


def _worker_init(backend: str, owner: int) -> None:
    bind_worker(
        owner, cleanup=kill_running
    )  # a stopped worker takes its running side along
    ZYGOTE.prepare(backend)


def _verify_pair_task(args: tuple) -> dict:
    pair_data, backend, rtol, atol, timeout = args
    pair = Pair.from_dict(pair_data)
    try:
        return verify_pair(pair, backend, rtol, atol, timeout)
    except Exception as error:  # noqa: BLE001 - a verifier bug is reported on its pair only
        return {
            "name": pair.name,
            "status": "error",
            "reason": f"internal error: {type(error).__name__}: {error}",
            "rules": [],
            "first_difference": None,
            "compared": 0,
            "seconds": 0.0,
        }


def verify_pairs(
    pairs: list[Pair],
    backend: str = "shim",
    rtol: float | None = None,
    atol: float | None = None,
    jobs: int | None = None,
    timeout: float | None = None,
) -> list[dict]:
    """Verify pairs in ``jobs`` worker processes (default: all cores); reports in pair order.

    The workers, not this process, load the shims, so the caller's ``torch``/``mindspore`` stay real."""
    tasks = [(pair.to_dict(), backend, rtol, atol, timeout) for pair in pairs]
    if not tasks:
        return []
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(tasks)))
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context(
        "forkserver" if "forkserver" in methods else "spawn"
    )
    if backend == "real" and missing_frameworks():
        return [
            _verify_pair_task(task) for task in tasks
        ]  # each reports the missing framework
    pool = ProcessPoolExecutor(
        max_workers=jobs,
        mp_context=context,
        initializer=_worker_init,
        initargs=(backend, os.getpid()),
    )
    try:
        reports = list(pool.map(_verify_pair_task, tasks, chunksize=1))
    except BaseException:  # stopped: no pair starts, no worker or side outlives this
        stop_pool(pool)
        raise
    pool.shutdown(wait=True)
    return reports


def verify_files(
    pairs: list[tuple[str, str]],
    backend: str = "shim",
    rtol: float | None = None,
    atol: float | None = None,
    jobs: int | None = None,
    timeout: float | None = None,
) -> list[dict]:
    """Verify each (original_path, converted_path): one report dict per pair, in order (see ``verify_pair``)."""
    items = [
        Pair(
            os.path.relpath(original),
            os.path.abspath(original),
            os.path.abspath(converted),
        )
        for original, converted in pairs
    ]
    return verify_pairs(items, backend, rtol, atol, jobs, timeout)


def is_runnable_script(source: str) -> bool:
    """A module that does something when run: a ``__main__`` block or other top-level code."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    quiet = (
        ast.Import,
        ast.ImportFrom,
        ast.FunctionDef,
        ast.AsyncFunctionDef,
        ast.ClassDef,
    )
    for node in tree.body:
        if isinstance(node, quiet) or (
            isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        ):
            continue
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and not any(
            isinstance(n, ast.Call) for n in ast.walk(node)
        ):
            continue
        return True
    return False


def run_verify(outputs: list[dict], options: dict) -> list[dict]:
    """The ``torch2ms convert --verify`` hook: verify the converted files that are runnable scripts.

    ``outputs``: ``{"path", "original", "converted"}`` per converted file; ``options``: ``backend``
    ("shim" by default), and optionally ``rtol``, ``atol``, ``jobs``, ``timeout``. Modules that
    only define things are not run."""
    runnable = [
        output
        for output in outputs
        if is_runnable_script(read_text(output["original"]))
    ]
    reports = verify_files(
        [(output["original"], output["converted"]) for output in runnable],
        backend=options.get("backend", "shim"),
        rtol=options.get("rtol"),
        atol=options.get("atol"),
        jobs=options.get("jobs"),
        timeout=options.get("timeout"),
    )
    for output, report in zip(runnable, reports):
        report["name"] = output["path"]
    return reports


def verify_path(
    path: str,
    converted: str | None = None,
    backend: str = "shim",
    rtol: float | None = None,
    atol: float | None = None,
    jobs: int | None = None,
    timeout: float | None = None,
) -> tuple[list[dict], list[str]]:
    """Verify a corpus folder, a pair folder or one original file; returns (reports, skipped pair names)."""
    if os.path.isdir(path):
        pairs = discover(path)
        if converted is not None and len(pairs) == 1:
            pairs[0].converted = os.path.abspath(converted)
            pairs[0].expected = None
    else:
        pairs = [
            Pair(
                os.path.basename(path),
                os.path.abspath(path),
                os.path.abspath(converted) if converted else None,
            )
        ]
    runnable = [pair for pair in pairs if backend in pair.backends]
    skipped = [pair.name for pair in pairs if backend not in pair.backends]
    return verify_pairs(runnable, backend, rtol, atol, jobs, timeout), skipped


def summarize(reports: list[dict]) -> dict[str, int]:
    counts = {"pass": 0, "fail": 0, "error": 0}
    for report in reports:
        counts[report["status"]] = counts.get(report["status"], 0) + 1
    return counts
