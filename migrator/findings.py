"""Findings: what a rule could not translate with certainty, or translated with a caveat."""

from __future__ import annotations

from dataclasses import asdict, dataclass

# SARIF levels. ``error`` means the code was left as it was and needs a hand edit.
ERROR = "error"
WARNING = "warning"
NOTE = "note"
SEVERITIES = (ERROR, WARNING, NOTE)


@dataclass(frozen=True)
class Finding:
    rule: str
    path: str
    line: int
    column: int
    severity: str
    message: str
    hint: str

    def to_dict(self) -> dict:
        return asdict(self)

    def comment(self) -> str:
        return f"# torch2ms: {self.rule} {self.message}"

    def location(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"
