"""``torch2ms compare-model``: the original on torch, the conversion on MindSpore, submodule by
submodule, from the same weights and inputs."""

from __future__ import annotations

import json
import sys

import click

from ..migrator.compare_model import ModelComparison, compare_model


@click.command(name="compare-model")
@click.option(
    "--original",
    multiple=True,
    required=True,
    type=click.Path(exists=True, file_okay=False),
    help="A folder the original package is imported from (repeatable).",
)
@click.option(
    "--converted",
    multiple=True,
    required=True,
    type=click.Path(exists=True, file_okay=False),
    help="A folder the converted package is imported from (repeatable).",
)
@click.option(
    "--model",
    required=True,
    help="`package.module:expression`, evaluated in that module: "
    "`timm:create_model('resnet18')`, `transformers:BertModel(BertConfig(...))`.",
)
@click.option(
    "--converted-model",
    help="A different expression for the converted side (default: the same).",
)
@click.option(
    "--input",
    "inputs",
    multiple=True,
    required=True,
    help="One positional input: SHAPE[:DTYPE[:LOW:HIGH]] (`1x3x224x224`, "
    "`2x16:int64:0:1000`) or a .npy file; repeat for more. Seeded, the same on both sides.",
)
@click.option("--rtol", type=float, default=1e-4, show_default=True,
              help="Tolerance relative to the scale (max |x|) of torch's output.")  # fmt: skip
@click.option("--atol", type=float, default=1e-6, show_default=True)
@click.option("--torch-python", help="The Python with torch (default: $TORCH2MS_TORCH_PYTHON or this one).")  # fmt: skip
@click.option(
    "--mindspore-python",
    help="The Python with MindSpore; torch is not needed there (default: "
    "$TORCH2MS_MINDSPORE_PYTHON or this one).",
)
@click.option("--timeout", type=float, default=1800, show_default=True, help="Seconds per side.")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
@click.option("--all-rows", is_flag=True, help="List every submodule, not only up to the first departure and the ones that depart.")  # fmt: skip
def command(
    original: tuple[str, ...],
    converted: tuple[str, ...],
    model: str,
    converted_model: str | None,
    inputs: tuple[str, ...],
    rtol: float,
    atol: float,
    torch_python: str | None,
    mindspore_python: str | None,
    timeout: float,
    as_json: bool,
    all_rows: bool,
) -> None:
    """Build MODEL from the original tree on torch and from the converted tree on MindSpore (each
    in its own process, torch blocked on the MindSpore side), give both torch's weights (placed
    by the converted model's own names, as `torch2ms weights` does), run both on the same inputs,
    and compare the output of every submodule/Cell, matched by qualified name, with a tolerance
    relative to each output's scale. Names the first submodule whose output departs, with the
    file and line of its forward and construct.

    Exit codes: 0 the outputs agree; 1 they do not (or the converted forward raises); 2 a side
    cannot be built, or the weights do not fit.

    \b
    Example:
      torch2ms compare-model --original timm-src --converted out \\
          --model "timm:create_model('resnet18')" --input 1x3x224x224
    """
    if ":" not in model:
        raise click.UsageError("--model is package.module:expression")
    result = compare_model(
        list(original), list(converted), model, list(inputs), torch_python,
        mindspore_python, rtol, atol, timeout, converted_model,
    )  # fmt: skip
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=1))
    else:
        _print(result, all_rows)
    sys.exit(result.exit_code)


def _fmt(error: float | None) -> str:
    return "-" if error is None else f"{error:.2e}"


def _print(result: ModelComparison, all_rows: bool) -> None:
    if result.status == "error" or (result.message and not result.rows):
        click.echo(f"torch2ms compare-model: {result.message}", err=True)
        if result.status == "error":
            return
    rows = result.rows
    if not all_rows and result.first is not None:
        first = next(i for i, r in enumerate(rows) if r.name == result.first["name"])
        rows = rows[: first + 1] + [r for r in rows[first + 1 :] if r.status != "ok"]
    elif not all_rows:
        rows = [r for r in rows if r.status != "ok"]
        compared = [r for r in result.rows if r.error is not None]
        if compared:
            worst = max(compared, key=lambda r: r.error)
            click.echo(
                f"{len(compared)} submodule calls compared, all within tolerance; the largest "
                f"relative difference is {worst.error:.2e} ({worst.label})"
            )
    if rows:
        width = min(60, max(len(r.label) for r in rows))
        click.echo(
            f"{'module':<{width}}  {'torch':<22} {'mindspore':<22} {'rel diff':>9}  status"
        )
        for r in rows:
            click.echo(
                f"{r.label:<{width}}  {r.torch_class[:22]:<22} {r.mindspore_class[:22]:<22} "
                f"{_fmt(r.error):>9}  {r.status}{'  ' + r.detail if r.detail and r.status != 'ok' else ''}"
            )
    missing = [r for r in result.rows if r.status == "missing"]
    if missing:
        click.echo(
            f"{len(missing)} torch submodule call(s) with no MindSpore Cell of that name"
        )
    for output in result.outputs:
        click.echo(
            f"output {output['index']}: {output['status']}"
            + (
                f", rel diff {_fmt(output.get('error'))}"
                if output.get("error") is not None
                else ""
            )
            + (f" ({output['detail']})" if output.get("detail") else "")
        )
    if result.first is not None:
        first = result.first
        click.echo(
            f"first departure: {first['name'] or '(model)'} ({first['status']}: {first['detail']})"
        )
        for side in ("torch", "mindspore"):
            where = first[side]
            click.echo(
                f"  {side:<9} {where['class']} at {where['file']}:{where['line']}"
            )
    click.echo("outputs agree" if result.status == "agree" else "outputs differ")
