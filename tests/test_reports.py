"""The JSON, Markdown and SARIF 2.1.0 reports."""

from __future__ import annotations

import json

import pytest
from torch2ms.migrator.findings import ERROR, NOTE, WARNING, Finding
from torch2ms.migrator.report import (
    conversion_rate,
    render,
    report_format,
    sarif_uri,
    summary,
    text_summary,
    to_json,
    to_markdown,
    to_sarif,
)
from torch2ms.migrator.rule import all_meta
from torch2ms.migrator.runner import FileOutcome, RunResult
from torch2ms.migrator.sources import Skipped


def _result() -> RunResult:
    a = FileOutcome(
        "src/train.py",
        lines=40,
        api_total=10,
        api_converted=7,
        changed=True,
        findings=[
            Finding(
                "TM900",
                "src/train.py",
                12,
                4,
                ERROR,
                "`torch.cuda.device_count` is not converted",
                "Write it by hand.",
            ),
            Finding(
                "TM001", "src/train.py", 1, 0, WARNING, "an import | with a pipe", ""
            ),
        ],
        rules_applied=("TM001",),
    )
    b = FileOutcome(
        "src/sub dir/bad.py",
        lines=3,
        failed=True,
        findings=[
            Finding(
                "TM000", "src/sub dir/bad.py", 2, 0, ERROR, "could not parse", "Fix it."
            )
        ],
    )
    c = FileOutcome("src/plain.py", lines=5)
    d = FileOutcome(
        "src/notes.py",
        lines=5,
        api_total=2,
        api_converted=2,
        changed=True,
        findings=[
            Finding("TMX42", "src/notes.py", 3, 0, NOTE, "an id without metadata", "")
        ],
    )
    return RunResult(
        [a, b, c, d],
        [
            Skipped(
                "link.py",
                "src/link.py",
                "symlink that points outside the tree (not followed)",
            )
        ],
        files=6,
        copied=2,
        elapsed=1.5,
        jobs=2,
    )


def test_conversion_rate() -> None:
    assert conversion_rate(7, 10) == 0.7
    assert conversion_rate(0, 0) == 1.0


def test_json_follows_the_design_schema() -> None:
    data = json.loads(render("report.json", _result(), {"target": "cpu"}))
    s = data["summary"]
    assert {
        "files",
        "lines",
        "api_calls_total",
        "api_calls_converted",
        "conversion_rate",
    } <= set(s)
    assert (
        s["files"] == 6
        and s["files_python"] == 4
        and s["files_failed"] == 1
        and s["files_changed"] == 2
    )
    assert (
        s["lines"] == 53
        and s["api_calls_total"] == 12
        and s["api_calls_converted"] == 9
    )
    assert s["conversion_rate"] == round(9 / 12, 4)
    assert s["findings_by_severity"] == {"error": 2, "warning": 1, "note": 1}
    assert s["elapsed_s"] == 1.5 and s["options"] == {"target": "cpu"}
    assert [f["rule"] for f in data["findings"]] == [
        "TMX42",
        "TM000",
        "TM001",
        "TM900",
    ]  # by path, then line
    record = data["findings"][-1]
    assert record == {
        "rule": "TM900",
        "path": "src/train.py",
        "line": 12,
        "column": 5,
        "severity": "error",
        "message": "`torch.cuda.device_count` is not converted",
        "hint": "Write it by hand.",
    }
    assert data["skipped"] == [
        {
            "path": "src/link.py",
            "reason": "symlink that points outside the tree (not followed)",
        }
    ]


def test_markdown_has_summary_rule_tables_and_locations() -> None:
    text = to_markdown(_result())
    assert text.startswith("# torch2ms conversion report")
    assert "| Torch API uses | 12 |" in text and "(75.0%)" in text
    assert (
        "## Findings by rule" in text and "| TM900 |" in text and "### TM900:" in text
    )
    assert "`src/train.py:12`" in text and "`src/sub dir/bad.py:2`" in text
    assert "an import \\| with a pipe" in text  # table cells stay one cell
    assert "## Skipped paths" in text


def test_text_summary() -> None:
    line = text_summary(_result())
    for part in (
        "4 Python files",
        "2 changed",
        "1 failed",
        "53 lines",
        "12 torch API uses",
        "9 converted (75.0%)",
        "2 error, 1 warning, 1 note",
        "1.50 s",
    ):
        assert part in line


@pytest.mark.parametrize(
    ("path", "fmt"),
    [
        ("r.json", ".json"),
        ("R.MD", ".md"),
        ("x/r.sarif", ".sarif"),
        ("r.txt", None),
        ("r", None),
    ],
)
def test_report_format(path: str, fmt: str | None) -> None:
    assert report_format(path) == fmt


def test_sarif_uri() -> None:
    assert sarif_uri("src/sub dir/a.py") == "src/sub%20dir/a.py"
    assert sarif_uri("./a.py") == "a.py"
    assert sarif_uri("/elsewhere/abs.py").startswith("file:///")


def _require(node: dict, *keys: str) -> None:
    for key in keys:
        assert key in node, (key, sorted(node))


def _message(node: dict) -> None:
    assert isinstance(node, dict) and ("text" in node or "id" in node)


def check_sarif_2_1_0(log: dict) -> None:
    """The structure SARIF 2.1.0 requires, plus what GitHub code scanning reads."""
    _require(log, "version", "runs")
    assert log["version"] == "2.1.0"
    assert isinstance(log["runs"], list) and log["runs"]
    for run in log["runs"]:
        _require(run, "tool")
        driver = run["tool"]["driver"]
        _require(driver, "name")
        assert isinstance(driver.get("version", ""), str)
        assert driver["informationUri"].startswith("https://")
        rules = driver.get("rules", [])
        ids = [rule["id"] for rule in rules]
        assert len(ids) == len(set(ids))
        for rule in rules:
            _require(rule, "id", "shortDescription", "fullDescription", "help")
            _message(rule["shortDescription"])
            _message(rule["fullDescription"])
            _message(rule["help"])
            assert len(rule["shortDescription"]["text"]) <= 1024
            assert rule["defaultConfiguration"]["level"] in {
                "none",
                "note",
                "warning",
                "error",
            }
        for result in run.get("results", []):
            _require(result, "message", "ruleId", "locations")
            _message(result["message"])
            assert result["level"] in {"none", "note", "warning", "error"}
            assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
            for location in result["locations"]:
                physical = location["physicalLocation"]
                uri = physical["artifactLocation"]["uri"]
                assert "\\" not in uri and not uri.startswith("/")
                region = physical["region"]
                assert isinstance(region["startLine"], int) and region["startLine"] >= 1
                assert (
                    isinstance(region["startColumn"], int)
                    and region["startColumn"] >= 1
                )


def test_sarif_structure() -> None:
    log = to_sarif(_result())
    check_sarif_2_1_0(log)
    run = log["runs"][0]
    driver_ids = {rule["id"] for rule in run["tool"]["driver"]["rules"]}
    assert {meta.id for meta in all_meta()} <= driver_ids
    assert "TMX42" in driver_ids  # a finding without metadata still gets a rule entry
    by_rule = {r["ruleId"]: r for r in run["results"]}
    tm900 = by_rule["TM900"]["locations"][0]["physicalLocation"]
    assert tm900["artifactLocation"]["uri"] == "src/train.py"
    assert tm900["region"] == {"startLine": 12, "startColumn": 5}
    assert by_rule["TM000"]["level"] == "error" and by_rule["TMX42"]["level"] == "note"
    json.dumps(log)


def test_sarif_against_the_json_schema() -> None:
    """A structural check with ``jsonschema`` where it is installed (a test-only extra)."""
    jsonschema = pytest.importorskip("jsonschema")
    schema = {
        "type": "object",
        "required": ["version", "runs"],
        "properties": {
            "version": {"const": "2.1.0"},
            "runs": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["tool"],
                    "properties": {
                        "tool": {
                            "type": "object",
                            "required": ["driver"],
                            "properties": {
                                "driver": {"type": "object", "required": ["name"]}
                            },
                        },
                        "results": {
                            "type": "array",
                            "items": {"type": "object", "required": ["message"]},
                        },
                    },
                },
            },
        },
    }
    jsonschema.validate(to_sarif(_result()), schema)


def test_summary_counts_match_the_outcomes() -> None:
    s = summary(_result())
    assert s["findings_by_rule"] == {"TM000": 1, "TM001": 1, "TM900": 1, "TMX42": 1}
    assert s["rules_applied"] == {"TM001": 1}
    assert to_json(_result())["summary"] == {**s, "options": {}}
