"""Every finding torch2ms leaves in a code base, grouped by rule and reason.

Usage: python scripts/examples_findings.py PATH [--exclude GLOB]... [--errors-only] [--where]

PATH is a checkout (for example of pytorch/examples) or a bare git directory of one (its HEAD is
exported to a temporary folder). The tree is converted as ``torch2ms convert PATH -o OUT`` converts
it (with the facts of the tree pass), into a temporary folder; nothing is written beside PATH.
Findings are grouped by rule and message, most frequent first; ``--where`` lists the file and line
of each. ``--exclude`` is passed on to ``torch2ms convert`` (``--exclude distributed``).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile


def materialise(path: str, into: str) -> str:
    """A folder holding the tree: PATH itself, or the Python files at the HEAD of a bare git
    directory (a snapshot may lack its largest files; only the code is converted)."""
    if not (
        os.path.isdir(os.path.join(path, "objects"))
        and os.path.exists(os.path.join(path, "HEAD"))
    ):
        return path
    git = ["git", "--git-dir", path]
    names = subprocess.run(
        [*git, "ls-tree", "-r", "--name-only", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    tree = os.path.join(into, "tree")
    for name in (n for n in names if n.endswith(".py")):
        blob = subprocess.run(
            [*git, "show", f"HEAD:{name}"], capture_output=True, check=True
        ).stdout
        target = os.path.join(tree, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as handle:
            handle.write(blob)
    return tree


def findings(path: str, exclude: list[str]) -> list[dict]:
    with tempfile.TemporaryDirectory() as work:
        tree = materialise(path, work)
        report = os.path.join(work, "report.json")
        command = [sys.executable, "-m", "torch2ms", "convert", tree]
        command += ["-o", os.path.join(work, "out"), "--report", report, "-q"]
        for pattern in exclude:
            command += ["--exclude", pattern]
        done = subprocess.run(command, check=False, capture_output=True, text=True)
        if not os.path.exists(report):
            raise SystemExit(
                f"torch2ms convert failed ({done.returncode}):\n{done.stderr}"
            )
        with open(report, encoding="utf-8") as handle:
            found = json.load(handle)["findings"]
        for finding in found:  # paths as the tree names them
            if os.path.isabs(finding["path"]):
                finding["path"] = os.path.relpath(finding["path"], tree)
        return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--exclude", action="append", default=[])
    parser.add_argument("--errors-only", action="store_true")
    parser.add_argument("--where", action="store_true")
    args = parser.parse_args(argv)
    found = findings(args.path, args.exclude)
    if args.errors_only:
        found = [f for f in found if f["severity"] == "error"]
    groups: dict[tuple[str, str, str], list[str]] = collections.defaultdict(list)
    for f in found:
        groups[(f["rule"], f["severity"], f["message"])].append(
            f"{f['path']}:{f['line']}"
        )
    by_rule = collections.Counter(f["rule"] for f in found)
    print(f"findings: {len(found)} in {len({f['path'] for f in found})} files")
    print("by rule: " + ", ".join(f"{rule} {n}" for rule, n in sorted(by_rule.items())))
    ordered = sorted(groups.items(), key=lambda item: (item[0][0], -len(item[1])))
    for (rule, severity, message), places in ordered:
        print(f"{rule} {severity} x{len(places)}: {message}")
        if args.where:
            for place in places:
                print(f"    {place}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
