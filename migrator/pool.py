"""The worker processes of a run, or none for a small run or ``-j 1``.

Each file has an owner for the whole run: a worker, chosen largest file first for the worker with
the fewest bytes so far. Every phase of the run (the first look, the index of the tree pass, the
conversions) sends a file to its owner, so a worker keeps what it read and parsed of its files
for its later phases (``reads``). A worker with nothing left to do takes the smallest files still
waiting for another one, and owns them from then on. What the main process merges between phases
goes to each worker once (``send``).

Each worker is a pool of one process. The files of a worker that died (killed, out of memory) are
done in the main process, in that phase and the later ones; a stop (a signal, or the caller
closing the stream) ends the workers at once.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from ..rules.companion import entry_names
from .lifetime import bind_worker, stop_pools
from .rule import rule_classes

# Below this many Python files, or this many bytes, a pool costs more than it saves.
SERIAL_FILES = 8
SERIAL_BYTES = 200_000
CHUNK_BYTES = 256_000
CHUNK_FILES = 16
# Chunks sent to a worker ahead of the one it works on, so that it never waits for the next.
AHEAD = 2

Setup = tuple[Callable[[Any], None], Any]


# A conversion allocates mostly syntax trees, which hold no reference cycles and are freed as soon
# as they are dropped. At the collector's default pace (a young collection every 700 allocations)
# the collections found almost nothing and took about a tenth of a run (timm, one process: 1.45
# of 16.9 s CPU, 50 full collections); at this pace 0.18 s, with the same peak memory.
COLLECTOR_PACE = (50_000, 20, 100)


def _init_worker(owner: int, setups: Sequence[Setup]) -> None:
    bind_worker(owner)
    gc.set_threshold(*COLLECTOR_PACE)
    rule_classes()
    for setup, data in setups:
        setup(data)
    gc.freeze()


def _call(setup: Callable[[Any], None], data: Any) -> None:
    setup(data)
    gc.freeze()


def _pool_context():
    methods = multiprocessing.get_all_start_methods()
    # fork shares the loaded rules with the workers; elsewhere the default method works too.
    return multiprocessing.get_context("fork") if "fork" in methods else None


def _take(queue: deque, from_end: bool = False) -> list:
    """A chunk of tasks from the front of ``queue`` (or from its end: the smallest)."""
    chunk: list = []
    size = 0
    while queue and size < CHUNK_BYTES and len(chunk) < CHUNK_FILES:
        task = queue.pop() if from_end else queue.popleft()
        chunk.append(task)
        size += task.size
    return chunk


class _Lane:
    """One worker: its process (a pool of one, started with its first work) and whether it
    died."""

    def __init__(self) -> None:
        self.pool: ProcessPoolExecutor | None = None
        self.lost = False
        self.load = 0  # bytes of the files it owns


class Workers:
    """Runs a function over chunks of tasks, each in the worker that owns its files, when the run
    is worth workers; otherwise in this process."""

    def __init__(self, jobs: int, tasks: Sequence) -> None:
        total = sum(t.size for t in tasks)
        self.parallel = (
            jobs > 1 and len(tasks) >= SERIAL_FILES and total >= SERIAL_BYTES
        )
        self.jobs = jobs
        self.lanes = [_Lane() for _ in range(jobs if self.parallel else 0)]
        self.owner: dict[str, int] = {}
        self.setups: list[Setup] = []
        self.parsed: set[str] = set()
        if self.parallel:
            for task in sorted(tasks, key=lambda t: -t.size):
                self._owner_of(task)

    def _owner_of(self, task: Any) -> int:
        lane = self.owner.get(task.path)
        if lane is None:
            lane = min(range(len(self.lanes)), key=lambda i: self.lanes[i].load)
            self.owner[task.path] = lane
            self.lanes[lane].load += task.size
        return lane

    def _pool(self, lane: int) -> ProcessPoolExecutor:
        found = self.lanes[lane].pool
        if found is None:
            # Read once here rather than in every worker: the forked workers share the
            # companion library.
            entry_names()
            found = self.lanes[lane].pool = ProcessPoolExecutor(
                max_workers=1,
                mp_context=_pool_context(),
                initializer=_init_worker,
                initargs=(os.getpid(), tuple(self.setups)),
            )
        return found

    def send(self, setup: Callable[[Any], None], data: Any) -> None:
        """Run ``setup(data)`` in each worker, before any work sent after this call (in those
        that start later too). A worker where it fails is lost: its files are done here."""
        self.setups.append((setup, data))
        sent: dict[Future, int] = {}
        for lane, worker in enumerate(self.lanes):
            if worker.pool is not None and not worker.lost:
                try:
                    sent[worker.pool.submit(_call, setup, data)] = lane
                except BrokenProcessPool:
                    worker.lost = True
        for future, lane in sent.items():
            if future.exception() is not None:
                self.lanes[lane].lost = True

    def map(
        self,
        work: Callable[..., list],
        tasks: Sequence,
        *args: Any,
        take_over: bool = True,
    ) -> Iterator[Any]:
        """``work(chunk, *args)`` over the tasks; its results one by one, as they complete (in
        no particular order). Without ``take_over``, no worker takes over another's files (for
        a phase too quick to need it: the files stay where the later phases are balanced)."""
        if not tasks:
            return
        if not self.parallel:
            for task in tasks:
                yield from work([task], *args)
            return
        queues = [deque() for _ in self.lanes]
        here: list = []  # the tasks of lost workers, done in this process at the end
        for task in sorted(tasks, key=lambda t: -t.size):
            lane = self._owner_of(task)
            (here if self.lanes[lane].lost else queues[lane]).append(task)
        pending: dict[Future, tuple[int, list]] = {}
        busy = [0] * len(self.lanes)

        def lose(lane: int) -> None:
            self.lanes[lane].lost = True
            here.extend(queues[lane])
            queues[lane].clear()

        def feed(lane: int, steal: bool = take_over) -> None:
            while busy[lane] < AHEAD and not self.lanes[lane].lost:
                # A worker about to wait takes over waiting files of another.
                chunk = _take(queues[lane]) or (
                    steal and not busy[lane] and self._steal(lane, queues)
                )
                if not chunk:
                    return
                try:
                    future = self._pool(lane).submit(work, chunk, *args)
                except BrokenProcessPool:
                    lose(lane)
                    here.extend(chunk)
                    return
                pending[future] = (lane, chunk)
                busy[lane] += 1

        for steal in (False, take_over):
            for lane in range(len(self.lanes)):
                feed(lane, steal)
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                lane, chunk = pending.pop(future)
                busy[lane] -= 1
                error = future.exception()
                if isinstance(error, BrokenProcessPool):
                    lose(lane)  # its process died: its files are done here from now on
                else:
                    feed(lane)
                if (
                    error is not None
                ):  # the worker died, or the work failed: redo it here
                    here.extend(chunk)
                    continue
                yield from future.result()
        for task in here:
            yield from work([task], *args)

    def _steal(self, lane: int, queues: list[deque]) -> list:
        """The smallest waiting tasks of the worker with the most bytes still waiting, for
        ``lane``, which owns them from now on; files whose ``ast`` their worker keeps last."""
        waiting = [(sum(t.size for t in q), i) for i, q in enumerate(queues) if q]
        if not waiting:
            return []
        _, victim = max(waiting)
        queue = queues[victim]
        loose = deque(t for t in queue if t.path not in self.parsed)
        chunk = _take(loose, from_end=True) or _take(queue, from_end=True)
        taken = {id(t) for t in chunk}
        left = [t for t in queue if id(t) not in taken]
        queue.clear()
        queue.extend(left)
        for task in chunk:
            self.owner[task.path] = lane
        return chunk

    def parsed_by_owner(self, paths: Iterable[str]) -> None:
        """These files' workers keep their ``ast`` (the index parsed them): another worker
        takes them over only when nothing else waits."""
        self.parsed.update(paths)

    def stop(self) -> None:
        """End the workers now (a stop)."""
        stop_pools([w.pool for w in self.lanes if w.pool is not None])
        for worker in self.lanes:
            worker.pool = None

    def close(self) -> None:
        """End the workers once their work is done."""
        for worker in self.lanes:
            if worker.pool is not None:
                worker.pool.shutdown(wait=True)
                worker.pool = None
