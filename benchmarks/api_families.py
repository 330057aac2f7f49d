"""The API-suite outcome per torch API family, from the ``results.json`` the suite writes.

    python benchmarks/api_families.py WORK/results.json [--json OUT]

The suite (a peer converter's per-API tests, run on real torch and on the conversion on real
MindSpore with torch unimportable) classifies each case as equal, equal_dtype, still_torch,
ms_error, timeout, convert_missing, mismatch or torch_failed. This prints one row per family:
cases that run on torch, how many give torch's values, how many still need torch, raise, or differ.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys

# (family, prefixes of the API's dotted name); the first family whose prefix matches wins.
FAMILIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("torch.Tensor methods", ("torch.Tensor.",)),
    ("torch.nn.functional", ("torch.nn.functional.",)),
    ("torch.nn.utils", ("torch.nn.utils.",)),
    ("torch.nn.init", ("torch.nn.init.",)),
    ("torch.nn.Module methods", ("torch.nn.Module.", "torch.nn.modules.module.")),
    ("torch.nn layers", ("torch.nn.",)),
    ("torch.distributions", ("torch.distributions.",)),
    ("torch.fft", ("torch.fft.",)),
    ("torch.signal", ("torch.signal.",)),
    ("torch.special", ("torch.special.",)),
    ("torch.linalg", ("torch.linalg.",)),
    ("torch.utils", ("torch.utils.",)),
    ("torch.autograd", ("torch.autograd.",)),
    ("torch.* functions", ("torch.functional.", "torch.torch.")),
)
EQUAL = ("equal", "equal_dtype")
RAISE = ("ms_error", "timeout", "convert_missing")


def family(api: str) -> str:
    for name, prefixes in FAMILIES:
        if api.startswith(prefixes):
            return name
    if api.startswith("torch.") and api.count(".") == 1:
        return "torch.* functions"
    return "other"


def table(cases: list[dict]) -> dict[str, collections.Counter]:
    rows: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for case in cases:
        if case["status"] == "torch_failed":
            continue
        counts = rows[family(case["api"])]
        counts["cases"] += 1
        counts["equal"] += case["status"] in EQUAL
        counts["equal_dtype"] += case["status"] == "equal_dtype"
        counts["still_torch"] += case["status"] == "still_torch"
        counts["raise"] += case["status"] in RAISE
        counts["differ"] += case["status"] == "mismatch"
    return rows


def render(rows: dict[str, collections.Counter]) -> str:
    head = "| family | cases | equal | with dtype | still need torch | raise | differ |"
    lines = [head, "|---|---|---|---|---|---|---|"]
    total: collections.Counter = collections.Counter()
    for name, counts in sorted(rows.items(), key=lambda kv: -kv[1]["cases"]):
        total.update(counts)
        lines.append(_row(name, counts))
    lines.append(_row("**all**", total))
    return "\n".join(lines)


def _row(name: str, c: collections.Counter) -> str:
    share = 100.0 * c["equal"] / c["cases"] if c["cases"] else 0.0
    return (
        f"| {name} | {c['cases']} | {c['equal']} ({share:.0f}%) | {c['equal_dtype']} "
        f"| {c['still_torch']} | {c['raise']} | {c['differ']} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", help="the results.json the API suite wrote")
    parser.add_argument("--json", help="also write the table as JSON here")
    args = parser.parse_args(argv)
    try:
        with open(args.results, encoding="utf-8") as handle:
            cases = json.load(handle)["cases"]
    except (OSError, ValueError, KeyError) as error:
        print(f"api_families: cannot read {args.results}: {error}", file=sys.stderr)
        return 2
    rows = table(cases)
    print(render(rows))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({k: dict(v) for k, v in rows.items()}, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
