"""Find, read and write source files without losing a byte of what no rule touches.

- Discovery walks a tree in sorted order, applies ``--exclude`` globs to paths relative to the root,
  and never follows a symlink whose target leaves the tree.
- Reading keeps the encoding (BOM, PEP 263 cookie) and the newlines: text is decoded from bytes,
  so ``\\r\\n`` stays ``\\r\\n`` and LibCST writes it back as it found it.
- Writing is atomic: a temp file in the destination folder, then ``os.replace``. A killed run leaves
  each file either as it was or fully written.
"""

from __future__ import annotations

import fnmatch
import io
import os
import stat
import tempfile
import tokenize
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

PYTHON_SUFFIXES = (".py",)
# Never worth converting or mirroring.
DEFAULT_EXCLUDES = (
    ".git",
    ".hg",
    ".svn",
    "__pycache__",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".tox",
    ".nox",
)
TEMP_PREFIX = ".torch2ms-"
TEMP_SUFFIX = ".tmp"


@dataclass(frozen=True)
class Entry:
    """One path found under a root."""

    path: str  # absolute path to read from
    relative: str  # path relative to the root, with forward slashes
    kind: str  # "python" | "file" | "link" (a symlink that stays inside the tree)
    size: int = 0


@dataclass(frozen=True)
class Skipped:
    relative: str
    path: str
    reason: str


@dataclass
class Decoded:
    text: str
    encoding: str  # codec name for writing back (``utf-8-sig`` keeps the BOM)


class UnreadableSource(Exception):
    """A file that cannot be decoded as Python source text."""


def is_python(name: str) -> bool:
    return name.endswith(PYTHON_SUFFIXES)


def excluded(relative: str, patterns: Sequence[str]) -> bool:
    """True when a pattern matches the relative path, its name, or one of its parent folders."""
    if not patterns:
        return False
    parts = relative.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    for pattern in patterns:
        pattern = pattern.replace(os.sep, "/").rstrip("/")
        pattern = pattern.removeprefix("./")
        for candidate in prefixes:
            if fnmatch.fnmatchcase(candidate, pattern):
                return True
        for part in parts:
            if fnmatch.fnmatchcase(part, pattern):
                return True
    return False


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def discover(
    root: str,
    exclude: Sequence[str] = (),
    skip_dirs: Iterable[str] = (),
) -> tuple[list[Entry], list[Skipped]]:
    """Every file under ``root`` (a folder), sorted by relative path.

    ``skip_dirs`` are absolute folders left out silently (an output tree inside the input).
    Symlinks whose target leaves the tree are skipped and returned in the second list; those that
    stay inside it are listed as ``link`` entries and never followed.
    """
    root = os.path.abspath(root)
    real_root = os.path.realpath(root)
    patterns = tuple(DEFAULT_EXCLUDES) + tuple(exclude)
    skip = {os.path.realpath(p) for p in skip_dirs}
    entries: list[Entry] = []
    skipped: list[Skipped] = []

    def walk(folder: str, prefix: str) -> None:
        try:
            with os.scandir(folder) as scan:
                items = sorted(scan, key=lambda e: e.name)
        except OSError as error:
            skipped.append(
                Skipped(
                    prefix.rstrip("/") or ".",
                    folder,
                    f"cannot list folder: {error.strerror or error}",
                )
            )
            return
        for item in items:
            relative = prefix + item.name
            if excluded(relative, patterns) or (
                item.name.startswith(TEMP_PREFIX) and item.name.endswith(TEMP_SUFFIX)
            ):
                continue
            if item.is_symlink():
                target = os.path.realpath(item.path)
                if not _inside(target, real_root) or not os.path.exists(target):
                    skipped.append(
                        Skipped(
                            relative,
                            item.path,
                            "symlink that points outside the tree (not followed)",
                        )
                    )
                elif any(_inside(target, s) for s in skip):
                    continue
                else:
                    entries.append(Entry(item.path, relative, "link"))
                continue
            try:
                if item.is_dir(follow_symlinks=False):
                    if os.path.realpath(item.path) in skip:
                        continue
                    walk(item.path, relative + "/")
                elif item.is_file(follow_symlinks=False):
                    size = item.stat(follow_symlinks=False).st_size
                    entries.append(
                        Entry(
                            item.path,
                            relative,
                            "python" if is_python(item.name) else "file",
                            size,
                        )
                    )
                else:
                    skipped.append(Skipped(relative, item.path, "not a regular file"))
            except OSError as error:
                skipped.append(
                    Skipped(
                        relative, item.path, f"cannot read: {error.strerror or error}"
                    )
                )

    walk(root, "")
    return entries, skipped


# -- reading ---------------------------------------------------------------------------------


def decode(data: bytes) -> Decoded:
    """Decode Python source bytes as the interpreter would (BOM, then a PEP 263 cookie, else UTF-8)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except (
        SyntaxError
    ) as error:  # unknown codec in the cookie, or a BOM that contradicts it
        raise UnreadableSource(str(error)) from None
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as error:
        raise UnreadableSource(f"not valid {encoding}: {error}") from None
    return Decoded(text, encoding)


def encode(text: str, encoding: str) -> bytes:
    """Bytes in the file's own encoding (a BOM stays a BOM)."""
    return text.encode(encoding)


def read_source(path: str) -> tuple[bytes, Decoded]:
    with open(path, "rb") as handle:
        data = handle.read()
    return data, decode(data)


# -- writing ---------------------------------------------------------------------------------


def file_mode(path: str) -> int | None:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return None


def atomic_write(
    path: str,
    data: bytes,
    mode: int | None = None,
    before_replace: Callable[[], None] | None = None,
) -> None:
    """Write ``data`` to ``path`` through a temp file in the same folder and ``os.replace``.

    The permissions are ``mode``, else those of the file being replaced, else the umask default.
    ``before_replace`` may raise to abandon the write (the temp file is removed).
    """
    folder = os.path.dirname(os.path.abspath(path))
    if mode is None:
        mode = file_mode(path)
    descriptor, temp = tempfile.mkstemp(
        prefix=TEMP_PREFIX, suffix=TEMP_SUFFIX, dir=folder
    )
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        if mode is None:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(temp, mode)
        if before_replace is not None:
            before_replace()
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


def copy_file(source: str, destination: str) -> None:
    """Copy bytes and permission bits, atomically."""
    with open(source, "rb") as handle:
        data = handle.read()
    atomic_write(destination, data, file_mode(source))


def copy_link(source: str, destination: str) -> None:
    """Recreate a symlink that stays inside the tree, pointing where it pointed."""
    target = os.readlink(source)
    if os.path.lexists(destination):
        if os.path.islink(destination) and os.readlink(destination) == target:
            return
        if os.path.isdir(destination) and not os.path.islink(destination):
            raise IsADirectoryError(destination)
        os.unlink(destination)
    os.symlink(target, destination)


def iter_python(entries: Iterable[Entry]) -> Iterator[Entry]:
    return (e for e in entries if e.kind == "python")
