"""Where each converted file finds the companion module, and writing that module after a run.

A file inside a package imports the companion relatively from the top package of the converted
tree (``from .. import ms_aux``), so the tree works wherever the package is installed. A file in a
plain folder (scripts) imports it absolutely (``import ms_aux``) and the companion is written into
that folder, beside the scripts. Each companion module holds the union of the entries its files use;
one already there from an earlier conversion is merged, never dropped.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

from ..rules.companion import (
    FILENAME,
    MODULE,
    assemble,
    entries_in,
    entry_names,
    is_companion,
)
from .context import CompanionImport
from .sources import atomic_write

_USE = re.compile(r"\b" + MODULE + r"\.([A-Za-z_]\w*)")


def companion_uses(code: str) -> frozenset[str]:
    """The companion entries ``code`` reads (``ms_aux.BatchNorm2d``), whoever wrote them there."""
    if MODULE + "." not in code:
        return frozenset()
    known = set(entry_names())
    return frozenset(n for n in _USE.findall(code) if n in known)


def _is_package(folder: str) -> bool:
    return os.path.isfile(os.path.join(folder, "__init__.py"))


def site_for(
    source_file: str, source_root: str | None, destination: str | None
) -> tuple[str | None, CompanionImport]:
    """The folder the companion of ``source_file`` goes to (on the destination side, None when
    nothing is written) and how the converted file imports it.

    ``source_root`` bounds the package walk: the companion never goes above the converted tree.
    """
    folder = os.path.dirname(os.path.abspath(source_file))
    root = os.path.abspath(source_root) if source_root else folder
    out_folder = os.path.dirname(os.path.abspath(destination)) if destination else None
    if not _is_package(folder) or source_root is None:
        return out_folder, CompanionImport(MODULE, 0)
    top, dots = folder, 1
    while top != root:
        parent = os.path.dirname(top)
        if not _is_package(parent) or not (parent + os.sep).startswith(root + os.sep):
            break
        top, dots = parent, dots + 1
    if out_folder is not None:
        for _ in range(dots - 1):
            out_folder = os.path.dirname(out_folder)
    return out_folder, CompanionImport(MODULE, dots)


class CompanionError(Exception):
    """A companion module could not be written (the file there is the user's, or unwritable)."""


def write_companion(folder: str, entries: Iterable[str]) -> str:
    """Write (or extend) ``folder/ms_aux.py`` with ``entries``; returns its path."""
    path = os.path.join(folder, FILENAME)
    wanted = set(entries)
    if os.path.exists(path):
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        if not is_companion(text):
            raise CompanionError(
                f"{path} exists and was not written by torch2ms; rename it, or the converted "
                f"files cannot import their companion module `{MODULE}`"
            )
        wanted |= entries_in(text)
        new = assemble(wanted)
        if new == text:
            return path
    else:
        new = assemble(wanted)
    atomic_write(path, new.encode("utf-8"), 0o644)
    return path
