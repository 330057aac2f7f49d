"""Reports of a conversion run: JSON (the schema in DESIGN.md), Markdown for people, SARIF 2.1.0.

Lines are 1-based and so are columns in every report (as in SARIF and in editors).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Sequence
from urllib.parse import quote

from .. import __version__
from .findings import ERROR, NOTE, SEVERITIES, WARNING, Finding
from .rule import RuleMeta, all_meta, meta_for
from .runner import RunResult
from .sources import atomic_write

TOOL_NAME = "torch2ms"
INFORMATION_URI = "https://github.com/torch2ms/torch2ms"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"


def conversion_rate(converted: int, total: int) -> float:
    """Torch API uses converted over all torch API uses; 1.0 when there were none."""
    return round(converted / total, 4) if total else 1.0


def summary(result: RunResult, options: dict | None = None) -> dict:
    outcomes = result.outcomes
    findings = result.findings()
    api_total = sum(o.api_total for o in outcomes)
    api_converted = sum(o.api_converted for o in outcomes)
    by_severity = Counter(f.severity for f in findings)
    by_rule = Counter(f.rule for f in findings)
    applied = Counter(rule for o in outcomes for rule in o.rules_applied)
    return {
        "files": result.files,
        "files_python": len(outcomes),
        "files_changed": sum(1 for o in outcomes if o.changed),
        "files_failed": sum(1 for o in outcomes if o.failed),
        "files_copied": result.copied,
        "files_skipped": len(result.skipped),
        "lines": sum(o.lines for o in outcomes),
        "api_calls_total": api_total,
        "api_calls_converted": api_converted,
        "conversion_rate": conversion_rate(api_converted, api_total),
        # What tells whether the result runs without torch: files that still import it.
        "files_need_torch": sum(1 for o in outcomes if o.needs_torch),
        "files_need_torch_list": sorted(o.display for o in outcomes if o.needs_torch),
        "companion_modules": [
            os.path.relpath(p).replace(os.sep, "/") for p in result.companions
        ],
        "findings_by_severity": {
            severity: by_severity.get(severity, 0) for severity in SEVERITIES
        },
        "findings_by_rule": dict(sorted(by_rule.items())),
        "rules_applied": dict(sorted(applied.items())),
        "elapsed_s": round(result.elapsed, 3),
        "jobs": result.jobs,
        "options": dict(options or {}),
        "tool": {"name": TOOL_NAME, "version": __version__},
    }


def finding_record(finding: Finding) -> dict:
    return {
        "rule": finding.rule,
        "path": finding.path,
        "line": finding.line,
        "column": finding.column + 1,
        "severity": finding.severity,
        "message": finding.message,
        "hint": finding.hint,
    }


def to_json(
    result: RunResult, options: dict | None = None, extra: dict | None = None
) -> dict:
    report = {
        "summary": summary(result, options),
        "findings": [finding_record(f) for f in result.findings()],
        "skipped": [
            {"path": s.path.replace(os.sep, "/"), "reason": s.reason}
            for s in result.skipped
        ],
    }
    if extra:
        report.update(extra)
    return report


# -- Markdown --------------------------------------------------------------------------------


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def to_markdown(
    result: RunResult, options: dict | None = None, extra: dict | None = None
) -> str:
    data = summary(result, options)
    findings = result.findings()
    rate = data["conversion_rate"]
    out = ["# torch2ms conversion report", ""]
    out += [
        "| | |",
        "| --- | --- |",
        f"| Python files | {data['files_python']} ({data['files_changed']} changed, {data['files_failed']} could not be read or parsed) |",
        f"| Other files copied | {data['files_copied']} |",
        f"| Lines | {data['lines']:,} |",
        f"| Torch API uses | {data['api_calls_total']:,} |",
        f"| Converted | {data['api_calls_converted']:,} ({rate:.1%}) |",
        f"| Files that still need torch | {data['files_need_torch']} |",
        f"| Companion modules | {', '.join(data['companion_modules']) or 'none'} |",
        "| Findings | "
        + ", ".join(f"{data['findings_by_severity'][s]} {s}" for s in SEVERITIES)
        + " |",
        f"| Time | {data['elapsed_s']:.2f} s |",
        "",
        (
            "Severity: **error** = left untranslated, needs a hand edit; **warning** = translated with a caveat; "
            "**note** = information. Each finding is also a `# torch2ms: TMxxx ...` comment above its line in the output."
        ),
        "",
    ]
    if not findings:
        out += ["No findings.", ""]
    by_rule: dict[str, list[Finding]] = {}
    for finding in findings:
        by_rule.setdefault(finding.rule, []).append(finding)
    if by_rule:
        out += ["## Findings by rule", ""]
        out += [
            "| Rule | Title | Severity | Count | What to do |",
            "| --- | --- | --- | --- | --- |",
        ]
        for rule_id, group in sorted(by_rule.items()):
            meta = meta_for(rule_id)
            severities = Counter(f.severity for f in group)
            shown = ", ".join(
                f"{severities[s]} {s}" for s in SEVERITIES if severities.get(s)
            )
            out.append(
                f"| {rule_id} | {_cell(meta.title if meta else '')} | {shown} | {len(group)} | {_cell(meta.use_instead if meta else group[0].hint)} |"
            )
        out.append("")
        for rule_id, group in sorted(by_rule.items()):
            meta = meta_for(rule_id)
            out += [f"### {rule_id}: {meta.title if meta else ''}".rstrip(), ""]
            if meta:
                out += [
                    meta.what,
                    "",
                    f"*Why:* {meta.why}",
                    "",
                    f"*Use instead:* {meta.use_instead}",
                    "",
                ]
            out += ["| Location | Severity | Message |", "| --- | --- | --- |"]
            for finding in group:
                out.append(
                    f"| `{finding.path}:{finding.line}` | {finding.severity} | {_cell(finding.message)} |"
                )
            out.append("")
    by_file: dict[str, list[Finding]] = {}
    for finding in findings:
        by_file.setdefault(finding.path, []).append(finding)
    if by_file:
        out += ["## Findings by file", ""]
        for path, group in sorted(by_file.items()):
            out += [f"### `{path}`", ""]
            for finding in group:
                out.append(
                    f"- `{finding.path}:{finding.line}` **{finding.rule}** ({finding.severity}) {_cell(finding.message)}"
                )
                if finding.hint:
                    out.append(f"  - hint: {_cell(finding.hint)}")
            out.append("")
    if result.skipped:
        out += ["## Skipped paths", ""]
        out += [f"- `{s.path}`: {s.reason}" for s in result.skipped]
        out.append("")
    if extra and extra.get("verify"):
        out += ["## Verification", "", "| Pair | Status |", "| --- | --- |"]
        out += [
            f"| {_cell(p.get('name', ''))} | {_cell(p.get('status', ''))} |"
            for p in extra["verify"]
        ]
        out.append("")
    return "\n".join(out)


# -- SARIF 2.1.0 -----------------------------------------------------------------------------

_LEVELS = {ERROR: "error", WARNING: "warning", NOTE: "note"}


def _sarif_rule(meta: RuleMeta) -> dict:
    text = f"{meta.what}\n\nWhy: {meta.why}\n\nUse instead: {meta.use_instead}"
    markdown = f"**{meta.title}**\n\n{meta.what}\n\n*Why:* {meta.why}\n\n*Use instead:* {meta.use_instead}"
    return {
        "id": meta.id,
        "name": "".join(
            word.capitalize()
            for word in meta.title.replace("-", " ").split()
            if word.isalnum()
        )[:60]
        or meta.id,
        "shortDescription": {"text": meta.title},
        "fullDescription": {"text": meta.what},
        "help": {"text": text, "markdown": markdown},
        "defaultConfiguration": {"level": _LEVELS.get(meta.severity, "warning")},
        "properties": {"tags": ["torch2ms", meta.family or "migration"]},
    }


def sarif_uri(path: str) -> str:
    """A relative URI with forward slashes (what GitHub code scanning maps to the repository)."""
    path = path.replace(os.sep, "/")
    if os.path.isabs(path):
        relative = os.path.relpath(path).replace(os.sep, "/")
        path = relative if not relative.startswith("../") else path
    path = path.removeprefix("./")
    if path.startswith("/"):
        return "file://" + quote(path)
    return quote(path)


def to_sarif(
    result: RunResult, options: dict | None = None, extra: dict | None = None
) -> dict:
    findings = result.findings()
    metas = {meta.id: meta for meta in all_meta()}
    for finding in findings:
        if finding.rule not in metas:
            metas[finding.rule] = RuleMeta(
                finding.rule, finding.rule, finding.message, "", finding.hint
            )
    ordered = sorted(metas)
    index = {rule_id: i for i, rule_id in enumerate(ordered)}
    results = []
    for finding in findings:
        results.append(
            {
                "ruleId": finding.rule,
                "ruleIndex": index[finding.rule],
                "level": _LEVELS.get(finding.severity, "warning"),
                "message": {
                    "text": f"{finding.message}. Hint: {finding.hint}"
                    if finding.hint
                    else finding.message
                },
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {
                                "uri": sarif_uri(finding.path),
                                "uriBaseId": "%SRCROOT%",
                            },
                            "region": {
                                "startLine": max(1, finding.line),
                                "startColumn": finding.column + 1,
                            },
                        }
                    }
                ],
            }
        )
    data = summary(result, options)
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": TOOL_NAME,
                        "version": __version__,
                        "semanticVersion": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": [_sarif_rule(metas[rule_id]) for rule_id in ordered],
                    }
                },
                "results": results,
                "columnKind": "unicodeCodePoints",
                "properties": {"summary": data},
            }
        ],
    }


# -- writing ---------------------------------------------------------------------------------

FORMATS: dict[str, Callable[..., object]] = {
    ".json": to_json,
    ".md": to_markdown,
    ".sarif": to_sarif,
}


def report_format(path: str) -> str | None:
    """The format a report path asks for, by suffix; None when unknown."""
    suffix = os.path.splitext(path)[1].lower()
    return suffix if suffix in FORMATS else None


def render(
    path: str, result: RunResult, options: dict | None = None, extra: dict | None = None
) -> str:
    built = FORMATS[report_format(path) or ".json"](result, options, extra)
    if isinstance(built, str):
        return built
    return json.dumps(built, indent=2, ensure_ascii=False) + "\n"


def write_reports(
    paths: Sequence[str],
    result: RunResult,
    options: dict | None = None,
    extra: dict | None = None,
) -> None:
    for path in paths:
        folder = os.path.dirname(os.path.abspath(path))
        os.makedirs(folder, exist_ok=True)
        atomic_write(path, render(path, result, options, extra).encode("utf-8"))


def text_summary(result: RunResult) -> str:
    """The closing summary for stderr."""
    data = summary(result)
    severities = data["findings_by_severity"]
    lines = data["lines"]
    speed = (
        f", {lines / result.elapsed:,.0f} lines/s"
        if result.elapsed > 0 and lines
        else ""
    )
    return (
        f"torch2ms: {data['files_python']} Python files ({data['files_changed']} changed, {data['files_failed']} failed), "
        f"{data['files_copied']} other files copied, {lines:,} lines; "
        f"{data['api_calls_total']:,} torch API uses, {data['api_calls_converted']:,} converted ({data['conversion_rate']:.1%}); "
        f"{data['files_need_torch']} files still need torch; "
        f"findings: {severities[ERROR]} error, {severities[WARNING]} warning, {severities[NOTE]} note; "
        f"{result.elapsed:.2f} s{speed}"
    )
