"""The worker processes of a run, or none for a small run or ``-j 1``: a pool for the index of the
tree pass, and one started after it for the conversions (its workers start with the merged facts).

Each phase hands its files to the workers largest first, so no worker is left with a big file at
the end; the files of a worker that died (killed, out of memory) are done again in the main
process; a stop (a signal, or the caller closing the stream) ends the workers at once.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from ..rules.companion import entry_names
from .lifetime import bind_worker, stop_pool
from .rule import rule_classes

# Below this many Python files, or this many bytes, a pool costs more than it saves.
SERIAL_FILES = 8
SERIAL_BYTES = 200_000
CHUNK_BYTES = 256_000
CHUNK_FILES = 16


def _init_worker(owner: int, setup: Callable | None, data: Any) -> None:
    bind_worker(owner)
    rule_classes()
    if setup is not None:
        setup(data)
    gc.freeze()


def _chunks(tasks: Sequence) -> Iterator[list]:
    chunk: list = []
    size = 0
    for task in tasks:
        chunk.append(task)
        size += task.size
        if size >= CHUNK_BYTES or len(chunk) >= CHUNK_FILES:
            yield chunk
            chunk, size = [], 0
    if chunk:
        yield chunk


def _pool_context():
    methods = multiprocessing.get_all_start_methods()
    # fork shares the loaded rules with the workers; elsewhere the default method works too.
    return multiprocessing.get_context("fork") if "fork" in methods else None


class Workers:
    """Runs a function over chunks of tasks, in worker processes when the run is worth them."""

    def __init__(self, jobs: int, tasks: Sequence) -> None:
        total = sum(t.size for t in tasks)
        self.parallel = (
            jobs > 1 and len(tasks) >= SERIAL_FILES and total >= SERIAL_BYTES
        )
        self.jobs = jobs
        self.pool: ProcessPoolExecutor | None = None
        self.broken = False
        self.setup: tuple[Callable | None, Any] = (None, None)

    def renew(self, setup: Callable, data: Any) -> None:
        """Workers started from now on run ``setup(data)`` first (the pool in use, if any,
        ends once its work is done)."""
        self.close()
        self.broken = False
        self.setup = (setup, data)

    def _start(self) -> ProcessPoolExecutor:
        if self.pool is None:
            # Read once here rather than in every worker: the forked workers share the
            # companion library.
            entry_names()
            self.pool = ProcessPoolExecutor(
                max_workers=self.jobs,
                mp_context=_pool_context(),
                initializer=_init_worker,
                initargs=(os.getpid(), *self.setup),
            )
        return self.pool

    def map(
        self, work: Callable[..., list], tasks: Sequence, *args: Any
    ) -> Iterator[Any]:
        """``work(chunk, *args)`` over the tasks; its results one by one, as they complete (in
        no particular order)."""
        if not tasks:
            return
        if not self.parallel or self.broken:
            for task in tasks:
                yield from work([task], *args)
            return
        pool = self._start()
        ordered = sorted(tasks, key=lambda t: -t.size)
        retry: list = []
        limit = self.jobs * 3
        pending: dict[Future, list] = {}

        def drain(block_until: int) -> Iterator[Any]:
            while len(pending) > block_until:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    chunk = pending.pop(future)
                    try:
                        yield from future.result()
                    except Exception:  # noqa: BLE001 -- a worker died: redo its files here
                        self.broken = self.broken or isinstance(
                            future.exception(), BrokenProcessPool
                        )
                        retry.extend(chunk)

        for chunk in _chunks(ordered):
            yield from drain(limit - 1)
            if self.broken:
                retry.extend(chunk)
                continue
            try:
                pending[pool.submit(work, chunk, *args)] = chunk
            except BrokenProcessPool:
                self.broken = True
                retry.extend(chunk)
        yield from drain(0)
        for task in retry:
            yield from work([task], *args)

    def stop(self) -> None:
        """End the workers now (a stop)."""
        if self.pool is not None:
            stop_pool(self.pool)
            self.pool = None

    def close(self) -> None:
        """End the workers once their work is done."""
        if self.pool is not None:
            self.pool.shutdown(wait=True)
            self.pool = None
