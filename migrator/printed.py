"""Labelled numbers from a script's printed output.

A printed record is a label (the text before the first number) and every number after it. Tensor
prints of both frameworks reduce to their values: ``tensor([[1., 2.]], grad_fn=<AddBackward0>)``,
``Tensor(shape=[1, 2], dtype=Float32, value=[[1. 2.]])``, ``[[1. 2.]]`` and ``[1.0, 2.0]`` all give
``1, 2``. Each number keeps the resolution it was printed with (torch shows 4 decimals), so the
comparison does not fail on torch's 4-decimal rounding.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

# Metadata inside tensor prints that is not a value.
_METADATA = re.compile(
    r"grad_fn=<[^>]*>"
    r"|\bshape=\[[^\]]*\]|\bshape=\([^)]*\)"
    r"|\bdtype=[\w.]+"
    r"|\bdevice=(?:'[^']*'|\"[^\"]*\"|[\w:]+)"
    r"|\brequires_grad=\w+"
    r"|\bname=[^,)\s]+"
    r"|\bsize=\([^)]*\)"
)
_NUMBER = re.compile(
    r"(?<![\w.])(?P<num>[-+]?(?:(?P<int>\d+)(?:\.(?P<frac>\d*))?|\.(?P<frac2>\d+))(?:[eE](?P<exp>[-+]?\d+))?)(?![\w.])"
    r"|(?<![\w.])(?P<special>[-+]?(?:inf|nan))(?!\w)"
    r"|\b(?P<bool>True|False)\b"
)
# Words and punctuation of tensor prints that are not part of a label.
_LABEL_NOISE = re.compile(
    r"\b(?:tensor|Tensor|Parameter|array|torch\.Size|value)\b|[\[\](){},=<>]"
)
_MAX_CONTINUATION = 10_000
TORCH_PRINT_DECIMALS = 4


@dataclass(frozen=True)
class Record:
    label: str
    values: tuple[float, ...]
    # Half a unit in the last printed digit of each value (0 when printed exactly).
    resolution: tuple[float, ...]
    line: int  # 1-based line of the output where the record starts

    def to_dict(self) -> dict:
        return {
            "label": self.label,
            "values": list(self.values),
            "resolution": list(self.resolution),
            "line": self.line,
        }

    @classmethod
    def from_dict(cls, data: dict) -> Record:
        return cls(
            data["label"],
            tuple(data["values"]),
            tuple(data["resolution"]),
            data["line"],
        )


def _depth(text: str) -> int:
    return text.count("[") + text.count("(") - text.count("]") - text.count(")")


def logical_lines(output: str) -> list[tuple[int, str]]:
    """Join the lines of a multi-line tensor print (open brackets continue on the next line)."""
    joined: list[tuple[int, str]] = []
    lines = output.splitlines()
    i = 0
    while i < len(lines):
        start, text = i, lines[i]
        depth = _depth(text)
        while depth > 0 and i + 1 < len(lines) and i - start < _MAX_CONTINUATION:
            i += 1
            text += " " + lines[i]
            depth += _depth(lines[i])
        joined.append((start + 1, text))
        i += 1
    return joined


def _resolution(match: re.Match) -> float:
    # torch prints floats with 4 decimals (fixed or scientific); other prints here (Python, NumPy,
    # MindSpore) are the shortest text that reads back as the same float, so they count as exact.
    frac = (
        match.group("frac") if match.group("frac") is not None else match.group("frac2")
    )
    if not frac or len(frac) != TORCH_PRINT_DECIMALS:
        return 0.0
    exponent = int(match.group("exp") or 0)
    return 0.5 * 10.0 ** (exponent - len(frac))


def parse_line(text: str, line: int = 1) -> Record | None:
    """The label and the numbers of one logical line; None when it shows no number."""
    cleaned = _METADATA.sub(" ", text)
    values: list[float] = []
    resolution: list[float] = []
    first = None
    for match in _NUMBER.finditer(cleaned):
        if first is None:
            first = match.start()
        if match.group("bool"):
            values.append(1.0 if match.group("bool") == "True" else 0.0)
            resolution.append(0.0)
        elif match.group("special"):
            values.append(float(match.group("special")))
            resolution.append(0.0)
        else:
            values.append(float(match.group("num")))
            resolution.append(_resolution(match))
    if first is None:
        return None
    label = " ".join(_LABEL_NOISE.sub(" ", cleaned[:first]).split()).rstrip(":;")
    return Record(label.strip(), tuple(values), tuple(resolution), line)


def parse_output(output: str) -> list[Record]:
    records = []
    for line, text in logical_lines(output):
        record = parse_line(text, line)
        if record is not None:
            records.append(record)
    return records


def keyed(records: list[Record]) -> dict[str, Record]:
    """Records keyed by label and occurrence: ``loss``, ``loss #2`` ..."""
    seen: dict[str, int] = {}
    result: dict[str, Record] = {}
    for record in records:
        seen[record.label] = seen.get(record.label, 0) + 1
        count = seen[record.label]
        result[record.label if count == 1 else f"{record.label} #{count}"] = record
    return result


def close(a: float, b: float, rtol: float, atol: float, slack: float = 0.0) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= atol + rtol * abs(a) + slack
