"""How much of timm 1.0.31 the converter turns into MindSpore.

Downloads the timm wheel once (``pip download --no-deps``) into a cache directory outside the
repository, converts every module in memory with the library API, and prints the conversion rate
(torch API uses converted / all uses), how many converted files compile, and the torch APIs left
unconverted most often.

    python scripts/timm_coverage.py [--cache DIR] [--target cpu|gpu|ascend] [--top 20]
"""

from __future__ import annotations

import argparse
import collections
import re
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from torch2ms.migrator.context import Options
from torch2ms.migrator.convert import convert_source

TIMM = "timm==1.0.31"
_UNCONVERTED = re.compile(r"`([^`]+)`")


def fetch(cache: Path) -> Path:
    """The unpacked timm package, downloading the wheel on first use."""
    tree = cache / "timm-1.0.31"
    if (tree / "timm").is_dir():
        return tree / "timm"
    cache.mkdir(parents=True, exist_ok=True)
    wheels = list(cache.glob("timm-1.0.31-*.whl"))
    if not wheels:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                TIMM,
                "-d",
                str(cache),
            ],
            check=True,
        )
        wheels = list(cache.glob("timm-1.0.31-*.whl"))
    with zipfile.ZipFile(wheels[0]) as wheel:
        wheel.extractall(tree)
    return tree / "timm"


def unconverted_name(message: str) -> str:
    match = _UNCONVERTED.search(message)
    return match.group(1) if match else message


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cache", type=Path, default=Path(tempfile.gettempdir()) / "torch2ms-cache"
    )
    parser.add_argument("--target", default="cpu", choices=("cpu", "gpu", "ascend"))
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args(argv)

    root = fetch(args.cache)
    files = sorted(root.rglob("*.py"))
    options = Options(target=args.target)
    total = converted = compiled = failed = lines = 0
    left: collections.Counter[str] = collections.Counter()
    by_rule: collections.Counter[str] = collections.Counter()
    started = time.perf_counter()
    for path in files:
        source = path.read_text(encoding="utf-8")
        result = convert_source(source, str(path.relative_to(root.parent)), options)
        lines += result.lines
        total += result.api_total
        converted += result.api_converted
        if result.failed:
            failed += 1
        try:
            compile(result.code, str(path), "exec", dont_inherit=True)
            compiled += 1
        except SyntaxError:
            pass
        for finding in result.findings:
            by_rule[finding.rule] += 1
            if finding.severity == "error" and finding.rule in (
                "TM900",
                "TM940",
                "TM941",
                "TM942",
            ):
                left[unconverted_name(finding.message)] += 1
    elapsed = time.perf_counter() - started
    rate = converted / total if total else 1.0
    print(
        f"timm 1.0.31: {len(files)} files, {lines} lines, converted in {elapsed:.1f} s (target {args.target})"
    )
    print(
        f"torch API uses: {total}, converted: {converted}, conversion rate: {rate:.1%}"
    )
    print(
        f"files that compile after conversion: {compiled}/{len(files)} (unparsable inputs: {failed})"
    )
    print(
        "findings by rule: "
        + ", ".join(f"{rule} {count}" for rule, count in sorted(by_rule.items()))
    )
    print(f"top {args.top} unconverted torch APIs (by findings):")
    for name, count in left.most_common(args.top):
        print(f"  {count:6d}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
