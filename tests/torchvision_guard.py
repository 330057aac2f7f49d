"""Test set-up: make a CUDA build of torchvision importable beside a CPU build of torch.

torchvision 0.28.0 (the version the ``test`` extra pins) registers fake kernels for its compiled
``nms`` and ``qnms`` operators at import time, in ``torchvision/_meta_registrations.py``. When its
compiled extension cannot load (a CUDA build of torchvision with the CPU build of torch), those
two registrations fail and ``import torchvision`` fails with them, although the pure-Python parts
the tests use (transforms, datasets, utils) need neither operator.

``guard()`` rewrites exactly those two decorators in the installed file so that they register only
when the extension loaded, the guard the other registrations in that file already have:

    @torch.library.register_fake("torchvision::nms")
becomes
    @(torch.library.register_fake("torchvision::nms") if torchvision.extension._has_ops() else (lambda f: f))

It patches the file if and only if the two decorators are unguarded, says so on stderr when it
does, and changes nothing otherwise (an already guarded file, another version, no torchvision).
"""

from __future__ import annotations

import importlib.util
import os
import sys

OPERATORS = ("nms", "qnms")


def _unguarded(operator: str) -> str:
    return f'@torch.library.register_fake("torchvision::{operator}")\n'


def _guarded(operator: str) -> str:
    return (
        f'@(torch.library.register_fake("torchvision::{operator}") '
        "if torchvision.extension._has_ops() else (lambda f: f))\n"
    )


def registrations_file() -> str | None:
    """The installed ``torchvision/_meta_registrations.py``, found without importing torchvision."""
    spec = importlib.util.find_spec("torchvision")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = os.path.join(
        next(iter(spec.submodule_search_locations)), "_meta_registrations.py"
    )
    return path if os.path.exists(path) else None


def guard(path: str | None = None) -> bool:
    """Guard the two registrations in ``path`` (default: the installed file); True if it patched."""
    path = path or registrations_file()
    if path is None:
        return False
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    if not all(_unguarded(op) in text for op in OPERATORS):
        return False
    for operator in OPERATORS:
        text = text.replace(_unguarded(operator), _guarded(operator), 1)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    print(
        f"torchvision_guard: guarded the nms/qnms fake-kernel registrations in {path} "
        "(torchvision's compiled extension does not load with this torch build)",
        file=sys.stderr,
    )
    return True
