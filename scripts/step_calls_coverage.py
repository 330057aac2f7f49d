"""Backward sites of a code base, counting the calls of loss scalers and step helpers as well as the
``backward()`` calls: how many torch2ms rewrites, how many it reports with a specific reason, and how
many still get the generic "no certain mapping" (TM900) or nothing.

Usage: python scripts/step_calls_coverage.py [--per-file] PATH...

A folder is converted as ``torch2ms convert`` converts a tree (with the facts of the tree pass);
``--per-file`` converts each file alone.

A *step call* is a call standing as a statement of a name ending in ``scaler`` with two positional
arguments or more (``loss_scaler(loss, optimizer, ...)``), or of a function of the same file whose
body runs ``backward()`` on one of its parameters. A site is *reported* when an error finding other
than TM900 stands at its line, *generic* when only TM900 does; otherwise a ``backward()`` is
*rewritten* when its line is gone from the converted file, and a step call when the converted file
no longer calls it with the loss; the rest is *silent*.
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
from collections import Counter
from types import SimpleNamespace

from torch2ms.migrator.context import Options
from torch2ms.migrator.convert import convert_source
from torch2ms.migrator.runner import Task
from torch2ms.migrator.tree_merge import settle_coupled
from torch2ms.migrator.tree_pass import tree_tasks

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from examples_backward_coverage import backward_lines, sources


def _helpers(tree: ast.Module) -> set[str]:
    """Functions whose body runs ``backward()`` on one of their parameters."""
    names = set()
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        params = {
            a.arg
            for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)
        }
        for call in ast.walk(node):
            if (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and call.func.attr == "backward"
            ):
                receiver = call.func.value
                if isinstance(receiver, ast.Call) and receiver.args:
                    receiver = receiver.args[0]
                if isinstance(receiver, ast.Name) and receiver.id in params:
                    names.add(node.name)
    return names


def step_call_lines(text: str) -> list[tuple[int, str, str]]:
    """Line, text and ``callee(first argument`` of every step call."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    helpers = _helpers(tree)
    lines = text.splitlines()
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Expr) or not isinstance(node.value, ast.Call):
            continue
        call = node.value
        last = (
            call.func.attr
            if isinstance(call.func, ast.Attribute)
            else getattr(call.func, "id", "")
        )
        if call.args and (
            ("scaler" in last.lower() and len(call.args) >= 2) or last in helpers
        ):
            key = f"{ast.unparse(call.func)}({ast.unparse(call.args[0])}"
            found.append((node.lineno, lines[node.lineno - 1].strip(), key))
    return sorted(found)


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def _kind(rules: list[str], source: str, key: str, code: str) -> str:
    if [r for r in rules if r != "TM900"]:
        return "reported"
    if rules:
        return "generic"
    if key:  # a step call is rewritten when nothing calls it with the loss any more
        return (
            "silent" if "".join(key.split()) in "".join(code.split()) else "rewritten"
        )
    left = {line.strip() for line in code.splitlines()}
    return "silent" if source in left else "rewritten"


def _tree_results(path: str, files: list[tuple[str, str]]) -> dict[str, object]:
    """Each file of a folder converted as the runner converts a tree: with the facts of the tree
    pass, and converted again where a coupled key was left by another file."""
    tasks = [
        Task(os.path.join(path, name), name, None, root=os.path.abspath(path))
        for name, _ in files
    ]
    texts = dict(files)
    tasks = tree_tasks(tasks, {t.path: texts[t.display].encode() for t in tasks})

    def convert(task: Task) -> SimpleNamespace:
        result = convert_source(
            texts[task.display], task.display, Options(), facts=task.tree
        )
        return SimpleNamespace(
            display=task.display, coupled=result.coupled, result=result
        )

    outcomes = settle_coupled(tasks, [convert(t) for t in tasks], convert)
    return {o.display: o.result for o in outcomes}


def measure(paths: list[str], tree: bool = True) -> Counter:
    tally: Counter = Counter()
    for path in paths:
        files = list(sources(path)) if os.path.isdir(path) else [(path, _read(path))]
        results = (
            _tree_results(path, files)
            if tree
            and os.path.isdir(path)
            and not os.path.exists(os.path.join(path, "HEAD"))
            else {}
        )
        for name, text in files:
            sites = [(line, source, "") for line, source in backward_lines(text)]
            sites += step_call_lines(text)
            if not sites:
                continue
            result = results.get(name) or convert_source(text, name, Options())
            at: dict[int, list[str]] = {}
            for finding in result.findings:
                if finding.severity == "error":
                    at.setdefault(finding.line, []).append(finding.rule)
            for line, source, key in sorted(sites):
                rules = at.get(line, [])
                kind = _kind(rules, source, key, result.code)
                tally[kind] += 1
                tally["sites"] += 1
                shown = f"  [{', '.join(rules)}]" if rules else ""
                print(f"{kind:9} {name}:{line}: {source[:70]}{shown}")
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument(
        "--per-file",
        action="store_true",
        help="convert each file alone, without the facts of the tree pass",
    )
    args = parser.parse_args(argv)
    tally = measure(args.paths, tree=not args.per_file)
    print(
        f"sites: {tally['sites']}; rewritten: {tally['rewritten']}; reported with a reason: "
        f"{tally['reported']}; generic TM900: {tally['generic']}; silent: {tally['silent']}"
    )
    return 0 if not tally["silent"] else 1


if __name__ == "__main__":
    sys.exit(main())
