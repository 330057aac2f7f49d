"""``torch2ms weights``: a PyTorch state_dict (.pth) as a MindSpore checkpoint (.ckpt)."""

from __future__ import annotations

import json
import sys

import click

from ..migrator.weights import WeightsError, checkpoint_path, convert_file


@click.command(name="weights")
@click.argument("source", type=click.Path(exists=True, dir_okay=False))
@click.argument("target", type=click.Path(dir_okay=False, writable=True))
@click.option(
    "--model-source",
    "model_source",
    type=click.Path(exists=True, dir_okay=False),
    help="The PyTorch file that defines the model; its layer kinds decide the names (Embedding vs Linear).",
)
@click.option(
    "--model",
    help="The Module class in --model-source whose state_dict this is (default: any that fits).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
)
def command(
    source: str, target: str, model_source: str | None, model: str | None, fmt: str
) -> None:
    """Convert the state_dict in SOURCE into the MindSpore checkpoint TARGET.

    Names follow MindSpore's layers (BatchNorm weight/bias/running_mean/running_var →
    gamma/beta/moving_mean/moving_variance, LayerNorm weight/bias → gamma/beta, Embedding weight →
    embedding_table); num_batches_tracked is dropped. Reading SOURCE needs PyTorch; TARGET is
    written with MindSpore when it is installed, else by torch2ms's own encoder (the same bytes).
    As with `mindspore.save_checkpoint`, `.ckpt` is appended to a TARGET without it, so code
    converted from `torch.load('model.pth')` reads `model.pth.ckpt`. Load it with
    `mindspore.load_param_into_net(net, mindspore.load_checkpoint(TARGET))`.

    \b
    Examples:
      torch2ms weights resnet.pth resnet.ckpt
      torch2ms weights model.pth model.ckpt --model-source model.py --model Net
    """
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
        return
    click.echo(
        f"{checkpoint_path(target)}: {len(conversion.entries)} tensors, {len(conversion.renamed)} renamed, {len(conversion.dropped)} dropped"
    )
    for old, new in conversion.renamed:
        click.echo(f"  {old} -> {new}")
    for name, why in conversion.dropped:
        click.echo(f"  dropped {name}: {why}")
    for name, why in conversion.assumed:
        click.echo(f"  assumed {name}: {why}", err=True)
