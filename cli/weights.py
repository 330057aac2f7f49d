"""``torch2ms weights``: a PyTorch state_dict (.pth) as a MindSpore checkpoint (.ckpt)."""

from __future__ import annotations

import json
import sys

import click

from ..migrator.weights import WeightsError, checkpoint_path, convert_file
from ..migrator.weights_model import convert_for_model


@click.command(name="weights")
@click.argument("source", type=click.Path(exists=True, dir_okay=False))
@click.argument("target", type=click.Path(dir_okay=False, writable=True))
@click.option(
    "--model",
    help="With --converted: the converted model, `package.module:expression` "
    "(`timm:create_model('resnet18')`); it is built on MindSpore and every tensor is placed by "
    "its own parameter names. With --model-source: a Module class in that file.",
)
@click.option(
    "--converted",
    "converted",
    multiple=True,
    type=click.Path(exists=True, file_okay=False),
    help="A folder the converted model's package is imported from (repeatable).",
)
@click.option(
    "--mindspore-python",
    help="The Python that builds the converted model (default: $TORCH2MS_MINDSPORE_PYTHON or "
    "this one); it needs MindSpore, not torch.",
)
@click.option(
    "--model-source",
    "model_source",
    type=click.Path(exists=True, dir_okay=False),
    help="Without --converted: the PyTorch file that defines the model; its layer kinds decide "
    "the names (Embedding vs Linear).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
)
def command(
    source: str,
    target: str,
    model: str | None,
    converted: tuple[str, ...],
    mindspore_python: str | None,
    model_source: str | None,
    fmt: str,
) -> None:
    """Convert the state_dict in SOURCE into the MindSpore checkpoint TARGET.

    With --model and --converted, the converted model is built on MindSpore (torch blocked) and
    each of its Parameters takes its tensor by the names its layer gives it; layouts that differ
    are reshaped (Conv1d), tied weights are written once. The checkpoint is written only when
    every parameter is placed and every tensor used, and is then loaded back into the model to
    check it. Otherwise nothing is written and the command exits 1, naming each key and why.

    Without a model the names are guessed from the keys and shapes (BatchNorm weight/bias/
    running_mean/running_var -> gamma/beta/moving_mean/moving_variance, LayerNorm weight/bias ->
    gamma/beta, Embedding weight -> embedding_table); keys whose layer kind is only a guess are
    listed and the command exits 1 (the checkpoint is written).

    Exit codes: 0 every tensor placed; 1 as above; 2 the input or the model cannot be read or
    built. Reading SOURCE needs PyTorch. `.ckpt` is appended to a TARGET without it, as
    `mindspore.save_checkpoint` does. Load with
    `mindspore.load_param_into_net(net, mindspore.load_checkpoint(TARGET))`.

    \b
    Examples:
      torch2ms weights resnet.pth resnet.ckpt --converted out --model "timm:create_model('resnet18')"
      torch2ms weights model.pth model.ckpt --model-source model.py --model Net
    """
    if converted:
        if not model or ":" not in model:
            raise click.UsageError(
                "--converted needs --model package.module:expression"
            )
        _by_model(source, target, model, list(converted), mindspore_python, fmt)
        return
    if model and ":" in model:
        raise click.UsageError(
            "--model package.module:expression needs --converted DIR (the converted tree)"
        )
    text = None
    if model_source is not None:
        with open(model_source, encoding="utf-8") as handle:
            text = handle.read()
    try:
        conversion = convert_file(source, target, text, model)
    except (WeightsError, SyntaxError) as error:
        click.echo(f"torch2ms weights: {error}", err=True)
        sys.exit(2)
    if fmt == "json":
        click.echo(
            json.dumps(
                {
                    "tensors": len(conversion.entries),
                    "renamed": dict(conversion.renamed),
                    "dropped": dict(conversion.dropped),
                    "assumed": dict(conversion.assumed),
                },
                indent=2,
            )
        )
    else:
        click.echo(
            f"{checkpoint_path(target)}: {len(conversion.entries)} tensors, "
            f"{len(conversion.renamed)} renamed, {len(conversion.dropped)} dropped"
        )
        for old, new in conversion.renamed:
            click.echo(f"  {old} -> {new}")
        for name, why in conversion.dropped:
            click.echo(f"  dropped {name}: {why}")
    if conversion.assumed:
        click.echo(
            f"torch2ms weights: {len(conversion.assumed)} key(s) named by a guess, which may "
            "not be the converted model's names (give --model and --converted to place them by "
            "the model):",
            err=True,
        )
        for name, why in conversion.assumed:
            click.echo(f"  {name}: {why}", err=True)
        sys.exit(1)


def _by_model(
    source: str,
    target: str,
    model: str,
    roots: list[str],
    python: str | None,
    fmt: str,
) -> None:
    try:
        result = convert_for_model(source, target, model, roots, python)
    except WeightsError as error:
        click.echo(f"torch2ms weights: {error}", err=True)
        sys.exit(2)
    if fmt == "json":
        click.echo(json.dumps(result.to_dict(), indent=2))
    placement = result.placement
    if result.ok:
        if fmt == "text":
            click.echo(
                f"{result.path}: {placement['placed']} parameters placed "
                f"({len(placement['renamed'])} renamed, {len(placement['tied'])} tied, "
                f"{len(placement['reshaped'])} reshaped, {len(placement['dropped'])} dropped); "
                "loaded back: 0 unloaded, 0 unused"
            )
        return
    problems = result.problems
    click.echo(
        f"torch2ms weights: the state_dict does not fit {model}; nothing written. "
        f"{len(problems)} problem(s):",
        err=True,
    )
    for key, why in problems[:60]:
        click.echo(f"  {key}: {why}", err=True)
    if len(problems) > 60:
        click.echo(f"  ... and {len(problems) - 60} more", err=True)
    for name in result.unloaded:
        click.echo(f"  {name}: not loaded by load_param_into_net", err=True)
    for name in result.unused:
        click.echo(f"  {name}: not used by load_param_into_net", err=True)
    sys.exit(1)
