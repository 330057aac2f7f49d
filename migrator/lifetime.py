"""How long the processes of a run live: stopping a run leaves nothing behind.

- The main process turns SIGINT, SIGTERM and SIGHUP into ``Stopped`` (a ``KeyboardInterrupt``), so
  one ``except KeyboardInterrupt`` stops the run, whatever signal asked for it, and exits 128+signal.
- Pool workers leave terminal signals to the main process, exit on SIGTERM (after the file they are
  writing, if any), and never outlive the process that started them: on Linux the kernel sends them
  SIGTERM when it dies (``PR_SET_PDEATHSIG``); elsewhere, and through a fork server (which lives
  as long as its workers do), a thread watches for it. Before each ``os.replace`` a worker checks
  that its parent is still the one that started it.
- Children started with ``subprocess`` or ``fork`` get a session of their own (their own
  children die with their group) and SIGKILL when their parent dies.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import NoReturn

STOP_NAMES = {"SIGINT": "interrupted", "SIGTERM": "terminated", "SIGHUP": "hangup"}
STOP_SIGNALS = tuple(
    getattr(signal, name) for name in STOP_NAMES if hasattr(signal, name)
)
# Seconds a stopped worker has to finish the file it is writing before it is killed.
WORKER_GRACE = 0.5
WATCH_INTERVAL = 0.2
_PR_SET_PDEATHSIG = 1


class Stopped(KeyboardInterrupt):
    """The run was asked to stop by a signal."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def stop_status(stop: KeyboardInterrupt) -> tuple[int, str]:
    """The exit code (128+signal) and the one line to print for a stopped run."""
    signum = getattr(stop, "signum", signal.SIGINT)
    name = STOP_NAMES.get(signal.Signals(signum).name, "stopped")
    return 128 + signum, f"torch2ms: {name}"


def exit_stopped(stop: KeyboardInterrupt) -> NoReturn:
    """Print the one line and exit 128+signal now. Call once the run's processes are stopped and
    its files settled: tearing down the interpreter would add most of a second to the stop."""
    code, message = stop_status(stop)
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(message + "\n")
        sys.stderr.flush()
    os._exit(code)


@contextlib.contextmanager
def stop_on_signals(on_stop: Callable[[], None] | None = None) -> Iterator[None]:
    """Raise ``Stopped`` at the first SIGINT, SIGTERM or SIGHUP (after ``on_stop``); exit at once
    on a second one. Outside the main thread this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    stopping = False

    def handler(signum: int, frame: object) -> None:
        nonlocal stopping
        if stopping:  # asked twice: the first stop is under way; do not wait for it
            os._exit(128 + signum)
        stopping = True
        if on_stop is not None:
            on_stop()
        raise Stopped(signum)

    previous = {signum: signal.signal(signum, handler) for signum in STOP_SIGNALS}
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)


# -- parent death -----------------------------------------------------------------------------


def _load_prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _load_prctl()  # looked up here, never in a freshly forked child


def set_parent_death_signal(signum: int) -> bool:
    """Have the kernel send ``signum`` to this process when its parent dies (Linux only)."""
    return _PRCTL is not None and _PRCTL(_PR_SET_PDEATHSIG, int(signum), 0, 0, 0) == 0


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _start_time(pid: int) -> str | None:
    """When ``pid`` started (Linux), so that a reused pid is not taken for the same process."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def watch_owner(owner: int, grace: float = 2.0) -> threading.Thread:
    """End this worker once its parent changes or ``owner`` is gone (a daemon thread): SIGTERM to
    the main thread, then, if that could not act within ``grace`` seconds, exit from here. For
    platforms without a parent death signal, and for workers of a fork server, whose parent
    outlives the main process while they live."""
    parent, started = os.getppid(), _start_time(owner)

    def owner_alive() -> bool:
        if os.getppid() != parent:
            return False
        return owner == parent or (pid_alive(owner) and _start_time(owner) == started)

    def watch() -> None:
        while owner_alive():
            time.sleep(WATCH_INTERVAL)
        if hasattr(
            signal, "pthread_kill"
        ):  # the main thread, so a blocking call is interrupted
            signal.pthread_kill(threading.main_thread().ident, signal.SIGTERM)
        else:
            os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(grace)
        exit_worker()

    thread = threading.Thread(target=watch, name="torch2ms-owner-watch", daemon=True)
    thread.start()
    return thread


def child_preexec() -> Callable[[], None]:
    """A ``preexec_fn`` for ``subprocess.Popen`` (with ``start_new_session=True``): the child is
    killed when the process that starts it dies, even by SIGKILL."""
    parent = os.getpid()

    def preexec() -> None:
        set_parent_death_signal(signal.SIGKILL)
        if os.getppid() != parent:  # the parent died before the line above
            os._exit(1)

    return preexec


def bind_forked_child(parent: int) -> None:
    """In a child made by ``os.fork`` (in a session of its own): die with ``parent``, and take the
    default signal dispositions back from the worker that forked it."""
    for signum in STOP_SIGNALS:
        signal.signal(
            signum,
            signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL,
        )
    set_parent_death_signal(signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


# -- pool workers -----------------------------------------------------------------------------


class Orphaned(BaseException):
    """This worker's parent died: it must write nothing more."""


class _Worker:
    parent: int | None = None
    term_only_while_writing = False
    writing = False
    exit_pending = False
    cleanup: Callable[[], None] | None = None


def bind_worker(owner: int, cleanup: Callable[[], None] | None = None) -> None:
    """Call first in a pool worker's initializer. ``owner`` is the main process's pid (the parent,
    or the grandparent through a fork server); ``cleanup`` runs before the worker exits on SIGTERM
    (e.g. to kill a child it waits for)."""
    _Worker.cleanup = cleanup
    for signum in STOP_SIGNALS:
        if signum != signal.SIGTERM:
            signal.signal(signum, signal.SIG_IGN)  # the main process decides
    # Without a clean-up, SIGTERM ends the worker at once, even inside a long native call (a
    # parse); only while a file is being written does a handler hold it back.
    _Worker.term_only_while_writing = cleanup is None
    signal.signal(signal.SIGTERM, signal.SIG_DFL if cleanup is None else _on_terminate)
    watched = set_parent_death_signal(signal.SIGTERM)
    parent = os.getppid()
    # Close the race where the parent died before the kernel was told to tell us.
    if parent != owner and not pid_alive(owner):
        exit_worker()
    _Worker.parent = parent
    if not watched or parent != owner:
        watch_owner(owner)


def orphaned() -> bool:
    return _Worker.parent is not None and os.getppid() != _Worker.parent


def check_parent() -> None:
    """Raise ``Orphaned`` in a worker whose parent died (call right before a write lands)."""
    if orphaned():
        raise Orphaned


def exit_worker() -> None:
    if _Worker.cleanup is not None:
        with contextlib.suppress(Exception):
            _Worker.cleanup()
    os._exit(128 + signal.SIGTERM)


def _on_terminate(signum: int, frame: object) -> None:
    if _Worker.writing:
        _Worker.exit_pending = True
    else:
        exit_worker()


@contextlib.contextmanager
def writing() -> Iterator[None]:
    """A SIGTERM that arrives in this block takes effect when it ends: a file being written is
    finished, or (parent gone) abandoned, never torn."""
    hold = _Worker.term_only_while_writing
    if hold:
        signal.signal(signal.SIGTERM, _on_terminate)
    _Worker.writing = True
    try:
        yield
    finally:
        _Worker.writing = False
        if hold:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
        if _Worker.exit_pending:
            exit_worker()


def stop_pool(pool: ProcessPoolExecutor, grace: float = WORKER_GRACE) -> None:
    """Stop a pool now: cancel what has not started, SIGTERM the workers, SIGKILL those still
    alive after ``grace`` seconds."""
    stop_pools([pool], grace)


def stop_pools(
    pools: Sequence[ProcessPoolExecutor], grace: float = WORKER_GRACE
) -> None:
    """Stop several pools now, as ``stop_pool`` does, within one ``grace`` period."""
    processes = []
    managers = []
    for pool in pools:
        processes += list((getattr(pool, "_processes", None) or {}).values())
        managers.append(getattr(pool, "_executor_manager_thread", None))
        pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(OSError, ValueError):
            process.terminate()
    deadline = time.monotonic() + grace
    for process in processes:
        with contextlib.suppress(ValueError):
            process.join(max(0.0, deadline - time.monotonic()))
    for process in processes:
        with contextlib.suppress(OSError, ValueError):
            if process.is_alive():
                process.kill()
                process.join(1.0)
    # Each pool's manager thread now sees its workers gone, fails what is left and ends; not
    # waited for without bound, since a worker killed halfway through sending a result leaves
    # it waiting for the rest of the message.
    deadline = time.monotonic() + grace
    for manager in managers:
        if manager is not None:
            manager.join(max(0.0, deadline - time.monotonic()))


# -- children of an in-process script ---------------------------------------------------------


def child_pids() -> list[int]:
    """The direct children of this process (Linux; empty elsewhere)."""
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir("/proc/self/task"):
            path = f"/proc/self/task/{task}/children"
            with contextlib.suppress(OSError), open(path) as handle:
                found += [int(pid) for pid in handle.read().split()]
    return found


def end_children(signum: int = signal.SIGTERM) -> list[int]:
    """Send ``signum`` to each direct child, and to its group when it leads one of its own."""
    children = child_pids()
    own_group = os.getpgrp()
    for pid in children:
        with contextlib.suppress(OSError):
            group = os.getpgid(pid)
            if group == pid and group != own_group:
                os.killpg(group, signum)
            else:
                os.kill(pid, signum)
    return children


def reap_children(grace: float = WORKER_GRACE) -> None:
    """End the children this process still has: SIGTERM, then SIGKILL after ``grace`` seconds."""
    if not end_children(signal.SIGTERM):
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
        if not child_pids():
            return
        time.sleep(0.02)
    end_children(signal.SIGKILL)
