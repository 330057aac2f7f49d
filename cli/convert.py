"""``torch2ms convert``: convert a file or a tree, write it safely, report what is left to do."""

from __future__ import annotations

import contextlib
import importlib
import os
import shutil
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator

import click

from ..migrator.context import Options
from ..migrator.findings import ERROR
from ..migrator.lifetime import exit_stopped, stop_on_signals
from ..migrator.report import report_format, text_summary, write_reports
from ..migrator.runner import Plan, PlanError, RunResult, Task, default_jobs, plan, run

# Runs the original and the converted file of each pair and compares them:
# ``run_verify(outputs, options) -> list[dict]`` with ``outputs`` a list of
# ``{"path", "original", "converted"}`` (files on disk) and ``options`` a dict
# (``target``, ``style``, ``backend``); each returned dict has at least ``name`` and ``status``
# ("pass" | "fail" | "error").
VERIFY_HOOKS = ("torch2ms.migrator.verify", "torch2ms.cli.verify")

# A run this large shows a progress bar when stderr is a terminal.
PROGRESS_FILES = 100
PROGRESS_BYTES = 2_000_000


def load_verify() -> Callable[[list[dict], dict], list[dict]] | None:
    for module_name in VERIFY_HOOKS:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            if error.name and module_name.startswith(error.name):
                continue
            raise
        hook = getattr(module, "run_verify", None)
        if callable(hook):
            return hook
    return None


def _progress(tasks: list[Task], quiet: bool) -> contextlib.AbstractContextManager:
    big = len(tasks) >= PROGRESS_FILES or sum(t.size for t in tasks) >= PROGRESS_BYTES
    if quiet or not big or not sys.stderr.isatty():
        return contextlib.nullcontext(None)
    return click.progressbar(length=len(tasks), label="converting", file=sys.stderr)


@contextlib.contextmanager
def _scratch() -> Iterator[str]:
    folder = tempfile.mkdtemp(prefix="torch2ms-")
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _redirect(work: Plan, folder: str) -> None:
    """Send every conversion into ``folder`` (a dry run that --verify can still run)."""
    work.tasks = [
        Task(
            t.path,
            t.display,
            os.path.join(folder, f"{i}_{os.path.basename(t.path)}"),
            t.size,
            False,
        )
        for i, t in enumerate(work.tasks)
    ]


def _back_up(work: Plan, folder: str) -> dict[str, str]:
    originals = {}
    for i, task in enumerate(work.tasks):
        copy = os.path.join(folder, f"{i}_{os.path.basename(task.path)}")
        shutil.copy2(task.path, copy)
        originals[task.display] = copy
    return originals


@click.command(name="convert")
@click.argument("sources", metavar="SRC...", nargs=-1, required=True, type=click.Path())
@click.option(
    "-o",
    "--output",
    "output",
    type=click.Path(),
    help="Write the converted tree (or file) here; SRC is not touched.",
)
@click.option(
    "--in-place", is_flag=True, help="Rewrite SRC itself (atomically, file by file)."
)
@click.option(
    "--check",
    is_flag=True,
    help="Write nothing; exit 1 if converting would change a file.",
)
@click.option(
    "--diff",
    "show_diff",
    is_flag=True,
    help="Print a unified diff of every change on stdout.",
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes (default: all cores).",
)
@click.option(
    "--report",
    "reports",
    multiple=True,
    type=click.Path(),
    help="Write a report; the suffix picks the format: .json, .md or .sarif (SARIF 2.1.0). Repeatable.",
)
@click.option(
    "--style",
    type=click.Choice(["functional", "cell"]),
    default="functional",
    show_default=True,
    help="Training loops as value_and_grad functions, or as TrainOneStepCell-style cells.",
)
@click.option(
    "--target",
    type=click.Choice(["cpu", "gpu", "ascend"]),
    default="cpu",
    show_default=True,
    help="Device the converted code must run on (mint APIs only for ascend).",
)
@click.option(
    "--strict", is_flag=True, help="Exit 1 when untranslatable (error) findings remain."
)
@click.option(
    "--exclude",
    "exclude",
    multiple=True,
    metavar="GLOB",
    help="Skip paths matching GLOB (relative to SRC; matches folders and file names too). Skipped paths are neither converted nor copied. Repeatable.",
)
@click.option(
    "--verify",
    is_flag=True,
    help="Run each original and its conversion and compare what they compute.",
)
@click.option(
    "--exit-nonzero-on-change",
    is_flag=True,
    help="Exit 1 when a file was rewritten (the pre-commit hook `torch2ms`).",
)
@click.option(
    "--lint",
    is_flag=True,
    help="Write nothing; print untranslatable findings as `path:line:col: TMxxx message` and exit 1 while any remain (the pre-commit hook `torch2ms-check`).",
)
@click.option(
    "--print-findings",
    is_flag=True,
    help="Print every finding as `path:line:col: TMxxx message` on stdout.",
)
@click.option("-q", "--quiet", is_flag=True, help="No summary or progress on stderr.")
def command(
    sources: tuple[str, ...],
    output: str | None,
    in_place: bool,
    check: bool,
    show_diff: bool,
    jobs: int | None,
    reports: tuple[str, ...],
    style: str,
    target: str,
    strict: bool,
    exclude: tuple[str, ...],
    verify: bool,
    exit_nonzero_on_change: bool,
    lint: bool,
    print_findings: bool,
    quiet: bool,
) -> None:
    """Convert PyTorch code in SRC (files or folders) to MindSpore.

    Untranslatable constructs are left as they are, reported, and marked in the output with a
    `# torch2ms: TMxxx message` comment above their line.

    \b
    Exit codes:
      0  done
      1  --check would change a file; --strict or --lint: untranslatable findings remain;
         --exit-nonzero-on-change: a file was rewritten; --verify: a pair differs
      2  bad usage, or some input could not be read or parsed (it is copied unchanged and
         reported; everything else is still converted)

    \b
    Examples:
      torch2ms convert src/ -o src_ms/ --report report.md --report report.sarif
      torch2ms convert train.py --in-place
      torch2ms convert src/ --check --diff        (the same with -o/--in-place: still writes nothing)
    """
    dry = check or lint
    if output is not None and in_place:
        raise click.UsageError("give either -o OUT or --in-place, not both")
    if not dry and output is None and not in_place:
        raise click.UsageError(
            "give -o OUT or --in-place (or --check / --lint to write nothing)"
        )
    for path in reports:
        if report_format(path) is None:
            raise click.UsageError(
                f"--report {path}: unknown format; use a .json, .md or .sarif suffix"
            )
    verify_hook = None
    if verify:
        verify_hook = load_verify()
        if verify_hook is None:
            click.echo(
                "torch2ms: --verify is not available in this version (no verify backend is installed)",
                err=True,
            )
            sys.exit(2)
    try:
        work = plan(sources, output, exclude, in_place)
    except PlanError as error:
        raise click.UsageError(str(error)) from None
    if (
        dry
    ):  # -o/--in-place may be given with --check/--lint; nothing is written either way
        work.tasks = [Task(t.path, t.display, None, t.size, False) for t in work.tasks]
        work.copies, work.links, work.folders = [], [], []
    options = Options(target=target, style=style)
    flags = {
        "sources": sources,
        "in_place": in_place,
        "check": check,
        "lint": lint,
        "show_diff": show_diff,
        "jobs": jobs,
        "reports": reports,
        "strict": strict,
        "exit_nonzero_on_change": exit_nonzero_on_change,
        "print_findings": print_findings,
        "quiet": quiet,
    }
    try:
        with stop_on_signals():
            code = _convert(work, options, flags, verify_hook)
    except KeyboardInterrupt as stop:
        # Ctrl-C, SIGTERM or SIGHUP; workers are already gone and every file is whole
        exit_stopped(stop)
    except Exception as error:  # noqa: BLE001 -- never a traceback for users
        if os.environ.get("TORCH2MS_DEBUG"):
            traceback.print_exc()
        click.echo(
            f"torch2ms: internal error: {error.__class__.__name__}: {error}", err=True
        )
        code = 2
    sys.exit(code)


def _convert(work: Plan, options: Options, flags: dict, verify_hook) -> int:
    quiet = flags["quiet"]
    with contextlib.ExitStack() as stack:
        originals: dict[str, str] = {}
        if verify_hook is not None:
            scratch = stack.enter_context(_scratch())
            if flags["check"] or flags["lint"]:
                _redirect(work, scratch)
            elif flags["in_place"]:
                originals = _back_up(work, scratch)
        bar = stack.enter_context(_progress(work.tasks, quiet))
        result = run(
            work,
            options,
            flags["jobs"] or default_jobs(),
            flags["show_diff"],
            bar.update if bar is not None else None,
        )
        verified = (
            _verify(result, work, originals, options, verify_hook)
            if verify_hook is not None
            else None
        )
    _print(result, flags)
    extra = {"verify": verified} if verified is not None else None
    report_options = {
        "target": options.target,
        "style": options.style,
        "sources": list(flags["sources"]),
    }
    if flags["reports"]:
        write_reports(flags["reports"], result, report_options, extra)
    if not quiet:
        for skipped in result.skipped:
            click.echo(f"torch2ms: skipped {skipped.path}: {skipped.reason}", err=True)
        click.echo(text_summary(result), err=True)
    return _exit_code(result, flags, verified)


def _verify(
    result: RunResult, work: Plan, originals: dict[str, str], options: Options, hook
) -> list[dict]:
    paths = {t.display: t.path for t in work.tasks}
    outputs = [
        {
            "path": o.display,
            "original": originals.get(o.display, paths[o.display]),
            "converted": o.destination,
        }
        for o in result.outcomes
        if o.changed and o.destination and not o.failed
    ]
    if not outputs:
        return []
    return list(
        hook(
            outputs,
            {"target": options.target, "style": options.style, "backend": "shim"},
        )
    )


def _print(result: RunResult, flags: dict) -> None:
    if flags["show_diff"]:
        for outcome in result.outcomes:
            if outcome.diff:
                click.echo(outcome.diff, nl=not outcome.diff.endswith("\n"))
    for outcome in result.outcomes:
        for finding in outcome.findings:
            shown = flags["print_findings"] or (
                flags["lint"] and finding.severity == ERROR
            )
            if shown:
                click.echo(
                    f"{finding.path}:{finding.line}:{finding.column + 1}: {finding.rule} {finding.message}"
                )
            elif outcome.failed and finding.rule == "TM000":
                click.echo(
                    f"{finding.path}:{finding.line}:{finding.column + 1}: {finding.rule} {finding.message}",
                    err=True,
                )


def _exit_code(result: RunResult, flags: dict, verified: list[dict] | None) -> int:
    if any(o.failed for o in result.outcomes):
        return 2
    changed = any(o.changed for o in result.outcomes)
    errors = any(f.severity == ERROR for o in result.outcomes for f in o.findings)
    if flags["check"] and changed:
        return 1
    if (flags["strict"] or flags["lint"]) and errors:
        return 1
    if (
        flags["exit_nonzero_on_change"]
        and changed
        and not (flags["check"] or flags["lint"])
    ):
        return 1
    if verified and any(v.get("status") != "pass" for v in verified):
        return 1
    return 0
