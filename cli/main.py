"""The ``torch2ms`` command line."""

from __future__ import annotations

import importlib

import click

from .. import __version__

# Subcommands live in their own modules; each defines a click command named ``command``.
SUBCOMMANDS = [
    "convert",
    "rules_cmd",
    "run",
    "weights",
    "compare_model",
    "verify",
]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="torch2ms")
def main() -> None:
    """Migrate PyTorch code to MindSpore 2.x and check each rewrite numerically."""


for _module in SUBCOMMANDS:
    main.add_command(importlib.import_module(f".{_module}", __package__).command)
