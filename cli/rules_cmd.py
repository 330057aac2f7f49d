"""``torch2ms rules``: every rule, from its own metadata, and the API mapping table."""

from __future__ import annotations

import dataclasses
import json

import click

from ..migrator.rule import RuleMeta, all_meta


def rule_record(meta: RuleMeta) -> dict:
    return {
        "id": meta.id,
        "title": meta.title,
        "what": meta.what,
        "why": meta.why,
        "use_instead": meta.use_instead,
        "severity": meta.severity,
        "family": meta.family,
        "examples": [
            {
                "before": e.before,
                "after": e.after,
                "findings": list(e.findings),
                "options": dict(e.options),
            }
            for e in meta.examples
        ],
    }


def _plain(value: object) -> object:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)
        }
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, frozenset, set)):
        return [_plain(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return repr(value)


def api_mappings() -> list[dict]:
    """``rules.api.all_mappings()`` (a list of dicts or records); [] while there is none."""
    try:
        from ..rules import api
    except ImportError:
        return []
    source = getattr(api, "all_mappings", None)
    records = source() if callable(source) else getattr(api, "ALL_MAPPINGS", ())
    out = []
    for record in records:
        if hasattr(record, "to_dict"):
            record = record.to_dict()
        out.append(_plain(record))
    return out


@click.command(name="rules")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
)
def command(fmt: str) -> None:
    """List the rules (id, severity, title) and the torch -> MindSpore API mappings.

    The JSON form is {"rules": [{"id", "title", "what", "why", "use_instead", "severity",
    "family", "examples"}], "api_mappings": [{"torch", "mindspore", ...}]}.
    """
    metas = all_meta()
    mappings = api_mappings()
    if fmt == "json":
        click.echo(
            json.dumps(
                {"rules": [rule_record(m) for m in metas], "api_mappings": mappings},
                indent=2,
                ensure_ascii=False,
            )
        )
        return
    width = max((len(m.severity) for m in metas), default=5)
    for meta in metas:
        click.echo(f"{meta.id}  {meta.severity:<{width}}  {meta.title}")
        click.echo(f"       {meta.use_instead}")
    click.echo(
        f"\n{len(metas)} rules, {len(mappings)} API mappings (torch2ms rules --format json lists them)"
    )
