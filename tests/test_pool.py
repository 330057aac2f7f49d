"""The workers of a run: each file goes to the worker that owns it in every phase, the work a
worker failed is done again here, and no file is lost or done twice."""

from __future__ import annotations

import os
from dataclasses import dataclass

import pytest
from torch2ms.migrator.pool import Workers

MAIN = os.getpid()


@dataclass(frozen=True)
class _Task:
    path: str
    size: int = 100_000


def _where(chunk: list[_Task], fails: str = "") -> list[tuple[str, int]]:
    if os.getpid() != MAIN and any(task.path in fails.split() for task in chunk):
        raise ValueError("a rule bug")
    return [(task.path, os.getpid()) for task in chunk]


def test_each_phase_sends_a_file_to_the_worker_that_last_did_it():
    tasks = [_Task(f"m{i}.py") for i in range(24)]
    workers = Workers(2, tasks)
    try:
        first = dict(workers.map(_where, tasks))
        assert sorted(first) == sorted(t.path for t in tasks)
        assert MAIN not in first.values() and len(set(first.values())) == 2
        # one file per worker: each takes its own, with none left to take over
        again = [
            next(t for t in tasks if first[t.path] == pid) for pid in {*first.values()}
        ]
        assert dict(workers.map(_where, again)) == {
            t.path: first[t.path] for t in again
        }
    finally:
        workers.close()


@pytest.mark.parametrize("failing", ["m0.py", "all"])
def test_work_a_worker_failed_is_done_here_and_nothing_is_lost(failing):
    tasks = [_Task(f"m{i}.py") for i in range(24)]
    fails = " ".join(t.path for t in tasks) if failing == "all" else failing
    workers = Workers(2, tasks)
    try:
        done = list(workers.map(_where, tasks, fails))
    finally:
        workers.close()
    assert sorted(path for path, _ in done) == sorted(t.path for t in tasks)
    where = dict(done)
    assert {where[path] for path in fails.split()} == {MAIN}
    if failing != "all":  # the worker goes on with its other files
        assert sum(pid != MAIN for pid in where.values()) >= len(tasks) - 3


def test_a_small_run_stays_in_this_process():
    tasks = [_Task(f"m{i}.py", 1_000) for i in range(24)]
    workers = Workers(2, tasks)
    assert not workers.parallel
    assert {pid for _, pid in workers.map(_where, tasks)} == {MAIN}
