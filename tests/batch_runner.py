"""Run many corpus scripts of one framework in ONE subprocess, and compare their printed numbers.

Importing MindSpore takes seconds, so the numeric corpus tests batch their scripts per framework:
``run_batch("torch" | "mindspore" | "shim", scripts)`` runs this file as the runner.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import runpy
import subprocess
import sys
import tempfile
import traceback

RTOL, ATOL = 1e-4, 1e-5


# -- runner (executed in a subprocess) ------------------------------------------------------------
def _run_scripts(mode: str, scripts: list[str], result_path: str) -> None:
    results = {}
    context = contextlib.nullcontext()
    if mode == "shim":
        from torch2ms.shims import importer

        context = importer.activate("shim")
    with context:
        for script in scripts:
            buffer = io.StringIO()
            error = None
            try:
                with contextlib.redirect_stdout(buffer):
                    runpy.run_path(script, run_name="__main__")
                    if mode == "mindspore":
                        # PyNative is asynchronous: surface pending errors here.
                        import mindspore

                        getattr(
                            getattr(mindspore, "runtime", None),
                            "synchronize",
                            lambda: None,
                        )()
            except BaseException as exc:  # noqa: BLE001 - the script's own failure is a result
                error = "".join(traceback.format_exception_only(type(exc), exc)).strip()
                if isinstance(exc, NotImplementedError):
                    error = "NotImplementedError: " + error
            results[script] = {"stdout": buffer.getvalue(), "error": error}
    with open(result_path, "w", encoding="utf-8") as handle:
        json.dump(results, handle)


def run_batch(mode: str, scripts: list[str]) -> dict[str, dict]:
    with tempfile.TemporaryDirectory() as tmp:
        result_path = os.path.join(tmp, "results.json")
        env = dict(os.environ)
        # Conversions that call companion entries find the module the conversion writes beside them.
        from torch2ms.migrator.companion import write_companion
        from torch2ms.migrator.runner import companion_uses

        entries: set[str] = set()
        for script in scripts:
            with open(script, encoding="utf-8") as handle:
                entries |= companion_uses(handle.read())
        if entries:
            write_companion(tmp, sorted(entries))
            env["PYTHONPATH"] = os.pathsep.join(
                p for p in (tmp, env.get("PYTHONPATH", "")) if p
            )
        completed = subprocess.run(
            [sys.executable, __file__, mode, result_path, *scripts],
            capture_output=True,
            check=False,
            text=True,
            env=env,
            timeout=900,
        )
        if not os.path.exists(result_path):
            raise RuntimeError(f"runner failed ({mode}): {completed.stderr[-2000:]}")
        with open(result_path, encoding="utf-8") as handle:
            return json.load(handle)


# -- comparison ---------------------------------------------------------------------------------
def records(stdout: str):
    from torch2ms.migrator.printed import parse_output

    return parse_output(stdout)


def compare(original: str, converted: str) -> str | None:
    """None when both outputs print the same labels with close numbers, else the first difference."""
    from torch2ms.migrator.printed import close

    left, right = records(original), records(converted)
    if len(left) != len(right):
        return f"{len(left)} printed records vs {len(right)}:\n{original}\n---\n{converted}"
    for a, b in zip(left, right):
        if a.label != b.label:
            return f"label {a.label!r} vs {b.label!r}"
        if len(a.values) != len(b.values):
            return f"{a.label}: {len(a.values)} values vs {len(b.values)}"
        for i, (x, y) in enumerate(zip(a.values, b.values)):
            slack = max(a.resolution[i], b.resolution[i])
            if not close(x, y, RTOL, ATOL, slack):
                return f"{a.label}[{i}]: {x} vs {y}"
    return None


if __name__ == "__main__":
    _run_scripts(sys.argv[1], sys.argv[3:], sys.argv[2])
