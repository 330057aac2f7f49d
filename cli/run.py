"""``torch2ms run``: run a script with torch/mindspore served by the shims or by the real packages."""

from __future__ import annotations

import os
import runpy
import sys
import traceback
from types import TracebackType

import click

from ..migrator.lifetime import (
    end_children,
    reap_children,
    stop_on_signals,
    stop_status,
)
from ..shims import importer

_THIS_FILE = os.path.abspath(__file__)


def _is_runner_frame(tb: TracebackType) -> bool:
    frame = tb.tb_frame
    return (
        frame.f_globals.get("__name__") in ("runpy", "contextlib")
        or os.path.abspath(frame.f_code.co_filename) == _THIS_FILE
    )


def _user_traceback(tb: TracebackType | None) -> TracebackType | None:
    """Drop the leading frames of this runner and runpy, so the script's own frames come first."""
    while tb is not None and _is_runner_frame(tb):
        tb = tb.tb_next
    return tb


def _exit_code(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def run_script(path: str, args: tuple[str, ...] = (), backend: str = "shim") -> int:
    """Run ``path`` as ``__main__`` with ``sys.argv = [path, *args]``; return its exit code."""
    script = os.path.abspath(path)
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [path, *args]
    sys.path.insert(0, os.path.dirname(script))
    try:
        with importer.activate(backend):
            runpy.run_path(script, run_name="__main__")
        return 0
    except SystemExit as stop:
        return _exit_code(stop.code)
    except KeyboardInterrupt as stop:
        # Ctrl-C, or SIGTERM/SIGHUP under ``torch2ms run``
        code, message = stop_status(stop)
        print(message, file=sys.stderr)
        return code
    except Exception as error:  # noqa: BLE001 - the script's own error, shown as Python shows it
        sys.stdout.flush()
        traceback.print_exception(
            type(error), error, _user_traceback(error.__traceback__), file=sys.stderr
        )
        return 1
    finally:
        sys.stdout.flush()
        sys.argv = saved_argv
        sys.path[:] = saved_path


@click.command(
    name="run",
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
@click.option(
    "--backend",
    type=click.Choice(["shim", "real"]),
    default="shim",
    show_default=True,
    help="shim: `import torch` / `import mindspore` load torch2ms's NumPy facades. "
    "real: the installed torch 2.13 / MindSpore 2.10.",
)
@click.argument("script", type=click.Path(exists=True, dir_okay=False))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def command(backend: str, script: str, args: tuple[str, ...]) -> None:
    """Run SCRIPT as __main__ with ARGS in sys.argv.

    With the shim backend no framework needs to be installed, and the same seed gives the same
    random numbers and initial parameters under `import torch` and `import mindspore`. The exit
    code is the script's; an error in the script is shown as its own traceback. SIGTERM and SIGHUP
    stop the script like Ctrl-C (exit 128+signal); the processes it started are then ended too.

    \b
    Examples:
      torch2ms run train.py --epochs 2
      torch2ms run --backend real train_ms.py
    """
    stopped = False

    def stop_children() -> None:
        nonlocal stopped
        stopped = True
        end_children()  # so that the script's own clean-up does not wait on them

    with stop_on_signals(stop_children):
        code = run_script(script, args, backend)
    if stopped:
        reap_children()
    sys.exit(code)


if __name__ == "__main__":
    command()
