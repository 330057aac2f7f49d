"""``torch2ms verify``: show numerically that conversions compute what their originals computed."""

from __future__ import annotations

import json
import sys
import time

import click

from ..migrator.lifetime import exit_stopped, stop_on_signals
from ..migrator.verify import summarize, verify_path


def _value(value: object) -> str:
    return json.dumps(value) if not isinstance(value, str) else value


def _text_report(
    reports: list[dict], skipped: list[str], seconds: float, backend: str
) -> str:
    lines = []
    for report in reports:
        status = report["status"].upper()
        head = f"{status:5} {report['name']}  ({report.get('compared', 0)} compared, {report.get('seconds', 0):.1f} s)"
        lines.append(head)
        if report["status"] == "pass":
            continue
        if report.get("reason"):
            lines.append(f"      {report['reason']}")
        first = report.get("first_difference")
        if first:
            lines.append(
                f"      first difference: {first['quantity']}"
                + (f" at {first['where']}" if first.get("where") else "")
            )
            lines.append(f"        original:  {_value(first['original'])}")
            lines.append(f"        converted: {_value(first['converted'])}")
            if first.get("detail"):
                lines.append(f"        {first['detail']}")
            for finding in first.get("findings_near", []):
                lines.append(f"        finding {finding}")
        if report.get("rules"):
            lines.append(f"      rules applied: {', '.join(report['rules'])}")
    counts = summarize(reports)
    tail = f"{len(reports)} pairs on the {backend} backend: {counts['pass']} passed, {counts['fail']} failed, {counts['error']} errors"
    if skipped:
        tail += f", {len(skipped)} skipped (not meant for this backend)"
    lines.append(f"{tail} in {seconds:.1f} s")
    return "\n".join(lines)


@click.command(name="verify")
@click.argument("path", type=click.Path(exists=True))
@click.argument(
    "converted", required=False, type=click.Path(exists=True, dir_okay=False)
)
@click.option(
    "--backend",
    type=click.Choice(["shim", "real"]),
    default="shim",
    show_default=True,
    help="shim: NumPy facades; real: installed torch and MindSpore.",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
)
@click.option(
    "--rtol",
    type=float,
    default=None,
    help="Relative tolerance (default 1e-4, or the pair's own).",
)
@click.option(
    "--atol",
    type=float,
    default=None,
    help="Absolute tolerance (default 1e-5, or the pair's own).",
)
@click.option(
    "-j",
    "--jobs",
    type=int,
    default=None,
    help="Pairs verified at once (default: all cores).",
)
@click.option(
    "--timeout",
    type=float,
    default=None,
    help="Seconds allowed per side (default 120 shim, 900 real).",
)
def command(
    path: str,
    converted: str | None,
    backend: str,
    output_format: str,
    rtol: float | None,
    atol: float | None,
    jobs: int | None,
    timeout: float | None,
) -> None:
    """Run PATH and its conversion and compare what they compute.

    PATH is a corpus folder (every pair folder in it: original.py, expected.py, meta.json), one pair
    folder, or one original script. Without CONVERTED the original is converted in memory with the
    current rules (a pair's expected.py is used when present, and must equal the converter's output).

    Compared: labelled printed numbers, the final parameters of same-named top-level modules, and
    same-named top-level tensors. Exit code 0 when every pair passes, 1 otherwise.

    \b
    Examples:
      torch2ms verify corpus/
      torch2ms verify train.py train_ms.py --backend real --format json
    """
    start = time.perf_counter()
    try:
        with stop_on_signals():
            reports, skipped = verify_path(
                path, converted, backend, rtol, atol, jobs, timeout
            )
    except KeyboardInterrupt as stop:
        # Ctrl-C, SIGTERM or SIGHUP; workers and sides are gone and every file is whole
        exit_stopped(stop)
    seconds = time.perf_counter() - start
    if output_format == "json":
        click.echo(
            json.dumps(
                {
                    "pairs": reports,
                    "skipped": skipped,
                    "summary": {**summarize(reports), "seconds": round(seconds, 3)},
                },
                indent=2,
            )
        )
    else:
        click.echo(_text_report(reports, skipped, seconds, backend))
    sys.exit(
        0 if reports and all(report["status"] == "pass" for report in reports) else 1
    )
