"""Conversion speed on timm 1.0.31, against a bare LibCST parse + codegen of the same files.

    python benchmarks/bench_convert.py                 # timm: lines/s (all cores, one process), ratio
    python benchmarks/bench_convert.py --transformers  # also peak memory converting transformers 5.23.0
    python benchmarks/bench_convert.py --profile       # per stage and per rule: where the time goes

The packages come from `pip download --no-deps` into a cache folder outside the repository
(``~/.cache/torch2ms-bench``, or ``--cache``) and are unpacked there once. Targets on a 2-core
machine: >= 20,000 lines/s with all cores, <= 1.5x the bare round trip in one process, <= 1 GB peak.
The one-process ratio is measured two ways: whole runs of each side taken in turns (the best of
``--whole-runs``), and file by file with the two sides interleaved (per file the best of
``--passes``), which holds steady on a loaded machine.
"""

from __future__ import annotations

import argparse
import gc
import glob
import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile

TIMM = ("timm", "1.0.31")
TRANSFORMERS = ("transformers", "5.23.0")
TARGET_LINES_PER_S = 20_000
TARGET_RATIO = 1.5
TARGET_PEAK_MB = 1024


def fetch(name: str, version: str, cache: str) -> str:
    """Download and unpack a wheel once; return the folder of its top-level package."""
    unpacked = os.path.join(cache, f"{name}-{version}")
    package = os.path.join(unpacked, name)
    if os.path.isdir(package):
        return package
    os.makedirs(cache, exist_ok=True)
    wheels = glob.glob(os.path.join(cache, f"{name}-{version}-*.whl"))
    if not wheels:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--only-binary=:all:",
                f"{name}=={version}",
                "-d",
                cache,
            ],
            check=True,
        )
        wheels = glob.glob(os.path.join(cache, f"{name}-{version}-*.whl"))
    with zipfile.ZipFile(wheels[0]) as archive:
        archive.extractall(unpacked)
    return package


def python_files(root: str) -> list[str]:
    found = []
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        found.extend(
            os.path.join(folder, f) for f in sorted(files) if f.endswith(".py")
        )
    return found


def round_trip(paths: list[str]) -> tuple[float, int]:
    """Seconds for a bare ``libcst.parse_module(text).code`` of every file; and the line count."""
    import libcst

    texts = []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            texts.append(handle.read())
    start, cpu = time.perf_counter(), time.process_time()
    for text in texts:
        _ = libcst.parse_module(text).code
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    return elapsed, cpu, sum(t.count("\n") for t in texts)


def convert(root: str, jobs: int) -> dict:
    """Convert ``root`` into a temporary folder with ``jobs`` processes; timing and peak memory."""
    import resource

    from torch2ms.migrator.context import Options
    from torch2ms.migrator.report import summary
    from torch2ms.migrator.rule import rule_classes
    from torch2ms.migrator.runner import plan, run

    rule_classes()
    with tempfile.TemporaryDirectory(prefix="torch2ms-bench-") as out:
        work = plan([root], os.path.join(out, "out"))
        start, before = time.perf_counter(), _cpu(resource)
        result = run(work, Options(), jobs)
        elapsed, cpu = time.perf_counter() - start, _cpu(resource) - before
    data = summary(result)
    return {
        "jobs": jobs,
        "elapsed_s": elapsed,
        "cpu_s": cpu,
        "lines": data["lines"],
        "files": data["files_python"],
        "failed": data["files_failed"],
        "conversion_rate": data["conversion_rate"],
        "maxrss_self_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "maxrss_children_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        / 1024,
    }


def interleaved(root: str, passes: int) -> dict:
    """File by file, a bare round trip and then the conversion (read, convert, compile check,
    write), each timed in this thread's CPU time; per file the best of ``passes``. Load from other
    processes then hits both sides alike, which a run of one after the other cannot promise."""
    import libcst
    from torch2ms.migrator.context import Options
    from torch2ms.migrator.rule import rule_classes
    from torch2ms.migrator.runner import convert_file, plan

    rule_classes()
    # What `run` does for its conversions: the loaded rules are left out of garbage collection, so
    # that they do not slow the collections of the bare round trips either.
    gc.freeze()
    options = Options()
    bare: dict[str, float] = {}
    conv: dict[str, float] = {}
    clock = time.thread_time
    with tempfile.TemporaryDirectory(prefix="torch2ms-bench-") as out:
        work = plan([root], os.path.join(out, "out"))
        for folder in work.folders:
            os.makedirs(folder, exist_ok=True)
        for _ in range(passes):
            for task in work.tasks:
                with open(task.path, encoding="utf-8") as handle:
                    text = handle.read()
                t0 = clock()
                _ = libcst.parse_module(text).code
                t1 = clock()
                convert_file(task, options)
                t2 = clock()
                bare[task.path] = min(bare.get(task.path, t1 - t0), t1 - t0)
                conv[task.path] = min(conv.get(task.path, t2 - t1), t2 - t1)
    return {"bare_s": sum(bare.values()), "convert_s": sum(conv.values())}


def _cpu(resource) -> float:
    """CPU seconds of this process and its finished children (the pool's workers)."""
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def in_child(function: str, *args) -> dict:
    """Run ``function(*args)`` of this module in a fresh interpreter (so that its memory figures
    are its own) and return the dict it returns."""
    call = f"{function}({', '.join(repr(a) for a in args)})"
    code = f"import json, sys; sys.path[:0] = {sys.path!r}; import bench_convert; print(json.dumps(bench_convert.{call}))"
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=os.path.dirname(os.path.abspath(__file__)),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--cache", default=os.path.expanduser("~/.cache/torch2ms-bench")
    )
    parser.add_argument(
        "--timm",
        metavar="DIR",
        help="an unpacked timm package folder instead of downloading",
    )
    parser.add_argument(
        "--transformers",
        action="store_true",
        help="also measure peak memory on transformers 5.23.0",
    )
    parser.add_argument(
        "--transformers-dir",
        metavar="DIR",
        help="an unpacked transformers package folder",
    )
    parser.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=0,
        help="processes for the all-cores run (default: all)",
    )
    parser.add_argument(
        "--whole-runs",
        type=int,
        default=2,
        help="whole one-process runs of each side, taken in turns (the best counts)",
    )
    parser.add_argument(
        "--passes",
        type=int,
        default=3,
        help="passes of the file-by-file comparison (per file the best counts)",
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="only print the stages and rule handlers that take the most time (one process)",
    )
    parser.add_argument(
        "--top", type=int, default=25, help="rows of the --profile tables"
    )
    args = parser.parse_args()

    from torch2ms.migrator.runner import default_jobs

    jobs = args.jobs or default_jobs()
    timm = os.path.abspath(args.timm) if args.timm else fetch(*TIMM, args.cache)
    if args.profile:
        from torch2ms.migrator.profiling import profile_tree

        profile_tree(timm, args.top)
        return 0
    paths = python_files(timm)
    # Whole runs one after the other, in turns: per side the best of ``--whole-runs``.
    trips, runs = [], []
    for _ in range(args.whole_runs):
        trips.append(round_trip(paths))
        runs.append(in_child("convert", timm, 1))
    bare, bare_cpu = min(t[0] for t in trips), min(t[1] for t in trips)
    lines = trips[0][2]
    one = min(runs, key=lambda r: r["elapsed_s"])
    one_cpu = min(r["cpu_s"] for r in runs)
    many = in_child("convert", timm, jobs)
    ratio = one["elapsed_s"] / bare
    cpu_ratio = one_cpu / bare_cpu
    pairs = in_child("interleaved", timm, args.passes)
    pair_ratio = pairs["convert_s"] / pairs["bare_s"]
    print(
        f"timm {TIMM[1]}: {len(paths)} files, {lines:,} lines; conversion rate {many['conversion_rate']:.1%}"
    )
    print(
        f"bare LibCST parse+codegen, one process: {bare:.2f} s, {lines / bare:,.0f} lines/s"
    )
    print(
        f"torch2ms, one process:                 {one['elapsed_s']:.2f} s, {one['lines'] / one['elapsed_s']:,.0f} lines/s"
    )
    print(
        f"torch2ms, all cores ({jobs} processes):    {many['elapsed_s']:.2f} s, {many['lines'] / many['elapsed_s']:,.0f} lines/s (target >= {TARGET_LINES_PER_S:,})"
    )
    print(
        f"one process / bare round trip, whole runs, best of {args.whole_runs}: {ratio:.2f}x wall clock, "
        f"{cpu_ratio:.2f}x CPU time (target <= {TARGET_RATIO}x)"
    )
    print(
        f"file by file, interleaved, best of {args.passes} per file (CPU time): round trip {pairs['bare_s']:.2f} s, "
        f"torch2ms {pairs['convert_s']:.2f} s: {pair_ratio:.2f}x (target <= {TARGET_RATIO}x)"
    )
    print(
        f"CPU time (less affected by other load on the machine): round trip {bare_cpu:.2f} s, one process {one_cpu:.2f} s, "
        f"all cores {many['cpu_s']:.2f} s; {jobs} cores would give {jobs * many['lines'] / many['cpu_s']:,.0f} lines/s"
    )
    figures = {
        "timm_lines": lines,
        "lines_per_s_all_cores": round(many["lines"] / many["elapsed_s"]),
        "lines_per_s_one_process": round(one["lines"] / one["elapsed_s"]),
        "lines_per_s_round_trip": round(lines / bare),
        "ratio_one_process_to_round_trip": round(ratio, 3),
        "ratio_cpu_time": round(cpu_ratio, 3),
        "ratio_file_by_file": round(pair_ratio, 3),
        "lines_per_s_all_cores_from_cpu_time": round(
            jobs * many["lines"] / many["cpu_s"]
        ),
    }
    if args.transformers:
        root = (
            os.path.abspath(args.transformers_dir)
            if args.transformers_dir
            else fetch(*TRANSFORMERS, args.cache)
        )
        big = in_child("convert", root, jobs)
        bound = big["maxrss_self_mb"] + jobs * big["maxrss_children_mb"]
        print(
            f"transformers {TRANSFORMERS[1]}: {big['files']} files, {big['lines']:,} lines in {big['elapsed_s']:.1f} s "
            f"({big['lines'] / big['elapsed_s']:,.0f} lines/s); peak RSS: main {big['maxrss_self_mb']:.0f} MB, "
            f"largest worker {big['maxrss_children_mb']:.0f} MB, all processes at most {bound:.0f} MB (target <= {TARGET_PEAK_MB} MB)"
        )
        figures.update(
            transformers_lines=big["lines"],
            peak_mb_main=round(big["maxrss_self_mb"]),
            peak_mb_worker=round(big["maxrss_children_mb"]),
            peak_mb_bound=round(bound),
        )
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
