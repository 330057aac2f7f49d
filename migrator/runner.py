"""Convert many files: plan what to read and write, run the conversions across processes, stream
the outcomes back.

Workers read, convert and write their files themselves and send back only a small record (counts,
findings, and a diff when one was asked for), so memory stays bounded on large trees.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import difflib
import gc
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from . import reads
from .companion import CompanionError, companion_uses, site_for, write_companion
from .context import CompanionImport, Options
from .convert import (
    INTERNAL_ERROR,
    PARSE_ERROR,
    convert_source,
    count_lines,
    imports_torch,
)
from .findings import ERROR, Finding
from .lifetime import Orphaned, check_parent, exit_worker, writing
from .pool import COLLECTOR_PACE, Workers
from .rule import rule_classes
from .sources import (
    Decoded,
    Skipped,
    UnreadableSource,
    atomic_write,
    copy_file,
    copy_link,
    discover,
    encode,
    file_mode,
    is_python,
)
from .tree import FileFacts, FileIndex
from .tree_index import FileRecord, Scan, record, scan, step_index
from .tree_merge import settle_coupled
from .tree_pass import (
    StepProbe,
    file_facts,
    final_tasks,
    install,
    plan_facts,
    settle_steps,
    to_index,
)


class PlanError(ValueError):
    """A request that cannot be carried out (bad paths or options); exit code 2."""


@dataclass(frozen=True)
class Task:
    path: str  # file to read
    display: str  # path shown in findings and reports
    destination: str | None  # where to write; None writes nothing
    size: int = 0
    copy_unchanged: bool = (
        False  # write the file even when nothing changed (a mirrored tree)
    )
    root: str | None = (
        None  # the converted tree this file belongs to (None: a lone file)
    )
    companion_dir: str | None = None  # where its companion module is written
    companion_import: CompanionImport = field(default_factory=CompanionImport)
    tree: FileFacts | None = None  # what the tree pass knows of the other files
    # set while the step pass may still want this file's step index (``tree_pass``)
    probe: StepProbe | None = None


@dataclass
class Plan:
    tasks: list[Task] = field(default_factory=list)
    copies: list[tuple[str, str]] = field(
        default_factory=list
    )  # non-Python files (source, destination)
    links: list[tuple[str, str]] = field(
        default_factory=list
    )  # symlinks inside the tree
    folders: list[str] = field(default_factory=list)  # output folders to create
    skipped: list[Skipped] = field(default_factory=list)
    files: int = 0  # every file found, Python or not


@dataclass
class FileOutcome:
    display: str
    lines: int = 0
    api_total: int = 0
    api_converted: int = 0
    changed: bool = False
    failed: bool = False
    written: bool = False
    findings: list[Finding] = field(default_factory=list)
    rules_applied: tuple[str, ...] = ()
    diff: str | None = None
    destination: str | None = None
    companion: frozenset[str] = frozenset()
    companion_dir: str | None = None
    # The converted code still imports torch or a package built on it.
    needs_torch: bool = False
    # Coupled keys of the tree pass: None where this file converted its part, else why not.
    coupled: dict[str, str | None] = field(default_factory=dict)


@dataclass
class RunResult:
    outcomes: list[FileOutcome]
    skipped: list[Skipped]
    files: int
    copied: int
    elapsed: float
    jobs: int
    companions: list[str] = field(default_factory=list)  # companion modules written

    @property
    def failed(self) -> list[FileOutcome]:
        return [o for o in self.outcomes if o.failed]

    @property
    def changed(self) -> list[FileOutcome]:
        return [o for o in self.outcomes if o.changed]

    @property
    def need_torch(self) -> list[FileOutcome]:
        return [o for o in self.outcomes if o.needs_torch]

    def findings(self) -> list[Finding]:
        found = [f for o in self.outcomes for f in o.findings]
        return sorted(found, key=lambda f: (f.path, f.line, f.column, f.rule))


# -- planning --------------------------------------------------------------------------------


def _display(path: str) -> str:
    return os.path.normpath(path).replace(os.sep, "/")


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def plan(
    sources: Sequence[str],
    output: str | None = None,
    exclude: Sequence[str] = (),
    in_place: bool = False,
) -> Plan:
    """What to convert and copy: into ``output`` (a mirrored tree), over the inputs (``in_place``),
    or nowhere (neither)."""
    if not sources:
        raise PlanError("no SRC given")
    if output is not None and len(sources) != 1:
        raise PlanError("-o/--output takes exactly one SRC (a file or a folder)")
    result = Plan()
    for source in sources:
        if not os.path.lexists(source):
            raise PlanError(f"{source}: no such file or folder")
        if os.path.isdir(source):
            _plan_tree(source, output, exclude, result)
        elif os.path.isfile(source):
            _plan_file(source, output, result)
        else:
            raise PlanError(f"{source}: not a file or folder")
    if in_place:
        if output is not None:
            raise PlanError("give either -o OUT or --in-place, not both")
        result.tasks = [
            dataclasses.replace(t, destination=t.path, copy_unchanged=False)
            for t in result.tasks
        ]
    result.tasks = [_with_companion_site(t) for t in result.tasks]
    return result


def _with_companion_site(task: Task) -> Task:
    folder, spec = site_for(task.path, task.root, task.destination)
    return dataclasses.replace(task, companion_dir=folder, companion_import=spec)


def _plan_file(source: str, output: str | None, result: Plan) -> None:
    result.files += 1
    destination = None
    if output is not None:
        destination = (
            os.path.join(output, os.path.basename(source))
            if os.path.isdir(output)
            else output
        )
        if os.path.realpath(destination) == os.path.realpath(source):
            raise PlanError(
                f"-o {output}: that is the input file itself (use --in-place to rewrite it)"
            )
        parent = os.path.dirname(os.path.abspath(destination))
        result.folders.append(parent)
    if is_python(source) or output is None:
        size = os.path.getsize(source)
        result.tasks.append(
            Task(
                os.path.abspath(source),
                _display(source),
                destination,
                size,
                destination is not None,
            )
        )
    else:
        result.copies.append((source, destination))


def _plan_tree(
    source: str, output: str | None, exclude: Sequence[str], result: Plan
) -> None:
    real_source = os.path.realpath(source)
    skip: list[str] = []
    if output is not None:
        real_output = os.path.realpath(output)
        if real_output == real_source:
            raise PlanError(
                f"-o {output}: that is the input folder itself (use --in-place to rewrite it)"
            )
        if _inside(real_source, real_output):
            raise PlanError(
                f"-o {output}: the input folder lies inside the output folder"
            )
        if os.path.exists(output) and not os.path.isdir(output):
            raise PlanError(f"-o {output}: exists and is not a folder")
        if _inside(real_output, real_source):
            skip.append(real_output)
    entries, skipped = discover(source, exclude, skip)
    result.skipped.extend(skipped)
    folders = set()
    for entry in entries:
        result.files += 1
        display = _display(os.path.join(source, entry.relative))
        destination = (
            os.path.join(output, *entry.relative.split("/"))
            if output is not None
            else None
        )
        if destination is not None:
            folders.add(os.path.dirname(destination))
        if entry.kind == "python":
            result.tasks.append(
                Task(
                    entry.path,
                    display,
                    destination,
                    entry.size,
                    destination is not None,
                    root=os.path.abspath(source),
                )
            )
        elif destination is None:
            continue
        elif entry.kind == "link":
            result.links.append((entry.path, destination))
        else:
            result.copies.append((entry.path, destination))
    if output is not None:
        folders.add(os.path.abspath(output))
    result.folders.extend(sorted(folders))


# -- one file --------------------------------------------------------------------------------


@dataclass
class _Read:
    """A file as its one read and ``ast`` parse give it."""

    data: bytes
    decoded: Decoded
    tree: ast.Module | None


@dataclass(frozen=True)
class Deferred:
    """A file the step pass wants: its step index, sent back instead of its conversion."""

    path: str
    steps: FileIndex


def _read(task: Task) -> _Read | FileOutcome:
    """Read and decode a file, and parse it where its facts need the ``ast`` (a file of a tree
    that imports); a failed outcome where it cannot be read."""
    outcome = FileOutcome(
        task.display, destination=task.destination, companion_dir=task.companion_dir
    )
    try:
        data = reads.read_bytes(task.path)
    except OSError as error:
        outcome.failed = True
        outcome.findings.append(
            _finding(
                "TM000",
                task.display,
                1,
                f"could not read: {error.strerror or error}",
                PARSE_ERROR.use_instead,
            )
        )
        return outcome
    try:
        decoded = reads.decoded(task.path, data)
    except UnreadableSource as error:
        outcome.failed = True
        outcome.lines = data.count(b"\n") + (
            1 if data and not data.endswith(b"\n") else 0
        )
        outcome.findings.append(
            _finding(
                "TM000",
                task.display,
                1,
                f"could not decode: {error}",
                PARSE_ERROR.use_instead,
            )
        )
        _write(task, None, outcome, data)
        return outcome
    # One ``ast`` parse of the file serves its index, its facts and its conversion.
    tree = reads.parsed_before(task.path)
    if tree is reads.UNPARSED:
        wanted = task.root is not None and "import" in decoded.text
        tree = reads.parsed(task.path, decoded.text) if wanted else None
    return _Read(data, decoded, tree)


def convert_file(task: Task, options: Options, want_diff: bool = False) -> FileOutcome:
    """Read, convert and (when ``task.destination``) write one file. Never raises for bad input."""
    read = _read(task)
    reads.forget(task.path)
    if isinstance(read, FileOutcome):
        return read
    return _convert_read(task, read, options, want_diff)


def _convert_or_defer(
    task: Task, options: Options, want_diff: bool
) -> FileOutcome | Deferred:
    read = _read(task)
    if isinstance(read, FileOutcome):
        reads.forget(task.path)
        return read
    if task.probe is not None and task.probe.wants(task.path, read.data):
        steps = step_index(
            task.path,
            task.display,
            read.data,
            read.decoded.text,
            read.tree,
            task.root,
        )
        if steps is not None:
            # what was read stays kept for the conversion, once the step facts are merged
            return Deferred(task.path, steps)
    reads.forget(task.path)
    return _convert_read(task, read, options, want_diff)


def _scan_file(task: Task) -> Scan | None:
    """The first look at a file of a tree (None: it cannot be read)."""
    try:
        data = reads.read_bytes(task.path)
    except OSError:
        return None
    return scan(task.path, task.display, data, task.root)


def _index_file(task: Task) -> tuple[str, FileRecord] | None:
    """The index record of a file others import from, or with step hints (None: it cannot be
    read)."""
    try:
        data = reads.read_bytes(task.path)
    except OSError:
        return None
    try:
        text = reads.decoded(task.path, data).text
    except UnreadableSource:
        text = None
    tree = reads.parsed(task.path, text) if text is not None else None
    return task.path, record(task.path, task.display, data, text, tree, task.root)


def _convert_read(
    task: Task, read: _Read, options: Options, want_diff: bool
) -> FileOutcome:
    outcome = FileOutcome(
        task.display, destination=task.destination, companion_dir=task.companion_dir
    )
    data, decoded, tree = read.data, read.decoded, read.tree
    try:
        inherited, module_classes = file_facts(task.path, task.root, decoded.text, tree)
        result = convert_source(
            decoded.text,
            task.display,
            options,
            task.companion_import,
            inherited,
            task.tree,
            module_classes,
            tree,
        )
    except RecursionError:
        result = None
        message = "the file is nested too deeply to convert; it was left unconverted"
    except Exception as error:  # noqa: BLE001 -- a rule bug must not stop the run
        result = None
        message = f"a rule failed ({error.__class__.__name__}: {error}); the file was left unconverted"
    if result is None:
        outcome.lines = count_lines(decoded.text)
        outcome.findings.append(
            _finding("TM999", task.display, 1, message, INTERNAL_ERROR.use_instead)
        )
        _write(task, None, outcome, data)
        return outcome
    outcome.lines = result.lines
    outcome.api_total = result.api_total
    outcome.api_converted = result.api_converted
    outcome.failed = result.failed
    outcome.findings = list(result.findings)
    outcome.rules_applied = tuple(result.rules_applied)
    # Uses already in the file count too: a tree converted again (or after a stopped run) keeps
    # every entry its files import.
    outcome.companion = result.companion | companion_uses(result.code)
    outcome.needs_torch = imports_torch(result.code)
    outcome.coupled = result.coupled
    new_data = None
    if result.changed:
        try:
            new_data = encode(result.code, decoded.encoding)
        except UnicodeEncodeError as error:
            outcome.findings.append(
                _finding(
                    "TM999",
                    task.display,
                    1,
                    f"the converted code cannot be written as {decoded.encoding} ({error.reason}); the file was left unconverted",
                    INTERNAL_ERROR.use_instead,
                )
            )
            outcome.api_converted = 0
    outcome.changed = new_data is not None
    if outcome.changed and want_diff:
        outcome.diff = "".join(
            difflib.unified_diff(
                decoded.text.splitlines(keepends=True),
                result.code.splitlines(keepends=True),
                fromfile=f"a/{task.display.lstrip('/')}",
                tofile=f"b/{task.display.lstrip('/')}",
            )
        )
    _write(task, new_data, outcome, data)
    return outcome


def _write(
    task: Task, new_data: bytes | None, outcome: FileOutcome, data: bytes
) -> None:
    if task.destination is None:
        return
    if new_data is None and not task.copy_unchanged:
        return
    try:
        # In a worker, a stop lets this write finish; an orphaned worker abandons it.
        with writing():
            atomic_write(
                task.destination,
                data if new_data is None else new_data,
                file_mode(task.path),
                check_parent,
            )
        outcome.written = True
    except OSError as error:
        outcome.failed = True
        outcome.findings.append(
            _finding(
                "TM000",
                task.display,
                1,
                f"could not write {task.destination}: {error.strerror or error}",
                "Check that the output folder is writable.",
            )
        )


def _finding(rule: str, path: str, line: int, message: str, hint: str) -> Finding:
    return Finding(rule, path, line, 0, ERROR, message, hint)


# -- many files ------------------------------------------------------------------------------


def _convert_chunk(
    tasks: list[Task], options: Options, want_diff: bool
) -> list[FileOutcome | Deferred]:
    try:
        return [_convert_or_defer(task, options, want_diff) for task in tasks]
    except Orphaned:
        # Nobody is left to report to, and the user's tree must not change any more.
        exit_worker()
        raise


def _scan_chunk(tasks: list[Task]) -> list[Scan]:
    return [found for task in tasks if (found := _scan_file(task)) is not None]


def _index_chunk(tasks: list[Task]) -> list[tuple[str, FileRecord]]:
    found = [entry for task in tasks if (entry := _index_file(task)) is not None]
    # The syntax trees kept for the conversions hold no cycles: out of the collector's sight,
    # or each full collection would walk them all again.
    gc.freeze()
    return found


def iter_outcomes(
    tasks: Sequence[Task],
    options: Options,
    workers: Workers,
    want_diff: bool = False,
    final: list[Task] | None = None,
) -> Iterator[FileOutcome]:
    """Outcomes as they complete (in no particular order): the files of trees indexed first
    (``tree_pass``), then converted with the facts of their tree. ``final`` receives the tasks
    with the step facts they were converted with."""
    rooted = [t for t in tasks if t.root is not None]
    scans = list(workers.map(_scan_chunk, rooted, take_over=False)) if rooted else []
    records = dict(workers.map(_index_chunk, to_index(rooted, scans)))
    workers.parsed_by_owner(records)
    tree_plan = plan_facts(tasks, records)
    del scans, records
    # Each worker receives the summaries of the trees once, and converts the files it indexed.
    install(tree_plan.tables)
    workers.send(install, tree_plan.tables)
    later: dict[str, FileIndex] = {}
    for outcome in workers.map(_convert_chunk, tree_plan.ready, options, want_diff):
        if isinstance(outcome, Deferred):
            later[outcome.path] = outcome.steps
        else:
            yield outcome
    settled = settle_steps(tree_plan, later, tasks)
    yield from workers.map(_convert_chunk, settled, options, want_diff)
    if final is not None:
        final.extend(final_tasks(tree_plan, settled, tasks))


def write_companions(
    outcomes: Sequence[FileOutcome],
) -> tuple[list[str], list[Skipped]]:
    """Write the companion module of each folder that converted files import it from."""
    wanted: dict[str, set[str]] = {}
    for outcome in outcomes:
        if outcome.companion and outcome.companion_dir and not outcome.failed:
            wanted.setdefault(outcome.companion_dir, set()).update(outcome.companion)
    written: list[str] = []
    errors: list[Skipped] = []
    for folder, entries in sorted(wanted.items()):
        try:
            written.append(write_companion(folder, entries))
        except (CompanionError, OSError) as error:
            errors.append(Skipped(_display(folder), folder, str(error)))
    return written, errors


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def run(
    work: Plan,
    options: Options,
    jobs: int | None = None,
    want_diff: bool = False,
    progress: Callable[[int], None] | None = None,
) -> RunResult:
    """Carry out a plan; outcomes come back sorted by path."""
    start = time.perf_counter()
    jobs = jobs or default_jobs()
    rule_classes()
    for folder in work.folders:
        os.makedirs(folder, exist_ok=True)
    copied = 0
    skipped = list(work.skipped)
    for source, destination in work.copies:
        try:
            copy_file(source, destination)
            copied += 1
        except OSError as error:
            skipped.append(
                Skipped(
                    _display(source),
                    source,
                    f"could not copy: {error.strerror or error}",
                )
            )
    for source, destination in work.links:
        try:
            copy_link(source, destination)
            copied += 1
        except OSError as error:
            skipped.append(
                Skipped(
                    _display(source),
                    source,
                    f"could not recreate symlink: {error.strerror or error}",
                )
            )
    outcomes: list[FileOutcome] = []
    tasks: list[Task] = []
    workers = Workers(jobs, work.tasks)
    # The rules, their tables and the caller's objects outlive the run: out of the collector's
    # sight, full collections only scan what the conversions allocate (a few percent of a run).
    gc.freeze()
    pace = gc.get_threshold()
    gc.set_threshold(*COLLECTOR_PACE)
    reads.clear()
    try:
        # Closed here, not whenever it is collected, so a stop ends the workers at once.
        with contextlib.closing(
            iter_outcomes(work.tasks, options, workers, want_diff, tasks)
        ) as stream:
            for outcome in stream:
                outcomes.append(outcome)
                if progress is not None:
                    progress(1)
        workers.close()
        outcomes = settle_coupled(
            tasks, outcomes, lambda task: convert_file(task, options, want_diff)
        )
    except BaseException:
        # Stopped (a signal, or an error): stop the workers at once.
        workers.stop()
        raise
    finally:
        reads.clear()
        gc.set_threshold(*pace)
        gc.unfreeze()
    outcomes.sort(key=lambda o: o.display)
    companions, companion_errors = write_companions(outcomes)
    skipped.extend(companion_errors)
    return RunResult(
        outcomes,
        skipped,
        work.files,
        copied,
        time.perf_counter() - start,
        jobs,
        companions,
    )
