"""How many ``backward()`` calls of a PyTorch code base torch2ms rewrites, and whether it reports the rest.

Usage: python scripts/examples_backward_coverage.py PATH [--style functional|cell]

PATH is a checkout of a repository (for example pytorch/examples) or a bare git directory of one
(its HEAD is read with ``git``). Every ``.py`` file is converted in memory; nothing is written. A
``backward()`` call is *rewritten* when the converted file no longer contains it, *reported* when it
is still there and an error finding stands at its line, and *silent* otherwise (a defect).
"""

from __future__ import annotations

import argparse
import ast
import os
import subprocess
import sys
from dataclasses import dataclass, field

from torch2ms.migrator.context import Options
from torch2ms.migrator.convert import convert_source


@dataclass
class Tally:
    total: int = 0
    rewritten: int = 0
    reported: list[tuple[str, int, str]] = field(default_factory=list)
    silent: list[tuple[str, int]] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)
    files: int = 0


def sources(path: str):
    """(relative path, text) of every Python file under a checkout or in a bare git directory."""
    if os.path.isdir(os.path.join(path, "objects")) and os.path.exists(
        os.path.join(path, "HEAD")
    ):
        names = subprocess.run(
            ["git", "--git-dir", path, "ls-tree", "-r", "--name-only", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split("\n")
        for name in sorted(n for n in names if n.endswith(".py")):
            blob = subprocess.run(
                ["git", "--git-dir", path, "show", f"HEAD:{name}"],
                capture_output=True,
                check=True,
            ).stdout
            yield name, blob.decode("utf-8", errors="replace")
        return
    for root, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for file in sorted(files):
            if file.endswith(".py"):
                full = os.path.join(root, file)
                with open(full, encoding="utf-8", errors="replace") as handle:
                    yield os.path.relpath(full, path), handle.read()


def backward_lines(text: str) -> list[tuple[int, str]]:
    """Line and statement text of every ``x.backward(...)`` / ``torch.autograd.backward(...)`` call."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    lines = text.splitlines()
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "backward"
        ):
            found.append((node.lineno, lines[node.lineno - 1].strip()))
    return sorted(found)


def measure(path: str, style: str = "functional") -> Tally:
    tally = Tally()
    for name, text in sources(path):
        tally.files += 1
        original = backward_lines(text)
        if not original:
            continue
        tally.total += len(original)
        try:
            result = convert_source(text, name, Options(style=style))
        except Exception as error:  # noqa: BLE001 - a crash is reported, never hidden
            tally.errors.append((name, repr(error)))
            tally.silent.extend((name, line) for line, _ in original)
            continue
        remaining = [t for _, t in backward_lines(result.code)]
        finding_lines: dict[int, str] = {}
        for finding in result.findings:
            if finding.severity == "error":
                finding_lines.setdefault(
                    finding.line, f"{finding.rule} {finding.message}"
                )
        # Pair each remaining call with an original one of the same text, in order.
        unconverted: list[tuple[int, str]] = []
        pool = list(original)
        for text_left in remaining:
            for i, (line, text_orig) in enumerate(pool):
                if text_orig == text_left:
                    unconverted.append(pool.pop(i))
                    break
        tally.rewritten += len(original) - len(unconverted)
        for line, _ in unconverted:
            if line in finding_lines:
                tally.reported.append((name, line, finding_lines[line]))
            else:
                tally.silent.append((name, line))
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--style", default="functional", choices=("functional", "cell"))
    args = parser.parse_args(argv)
    if not os.path.isdir(args.path):
        parser.error(f"{args.path}: not a folder (a checkout, or a bare git directory)")
    tally = measure(args.path, args.style)
    if not tally.files:
        print(f"error: no Python files under {args.path}", file=sys.stderr)
        return 2
    share = 100.0 * tally.rewritten / tally.total if tally.total else 0.0
    print(
        f"backward() calls: {tally.total}; rewritten: {tally.rewritten} ({share:.1f}%); reported: {len(tally.reported)}; silent: {len(tally.silent)}"
    )
    for name, line, message in tally.reported:
        print(f"reported {name}:{line}: {message}")
    for name, line in tally.silent:
        print(f"SILENT   {name}:{line}")
    for name, error in tally.errors:
        print(f"ERROR    {name}: {error}")
    return 0 if not tally.silent and not tally.errors else 1


if __name__ == "__main__":
    sys.exit(main())
