"""The tree index: what one file of a converted tree tells the others, several kinds of fact from
one ``ast`` parse of the file in a worker.

- ``Scan``: a first look at every file's bytes: the files of the tree its top-level
  ``from ... import`` read, and its step hints;
- ``FileRecord.summary``, for the files others import from: the torch aliases
  ``from module import *`` hands on, its torch aliases, its top-level classes with their bases
  and the names it imports from other files of the tree (resolved to their files in the worker),
  enough to tell which of its names are Module classes (``tree_classes``, ``star_imports``);
- ``FileRecord.steps``, for the files that run backward or name a loss scaler: definitions,
  imports, bindings and calls for the training-step helpers that cross files (``tree``,
  ``tree_merge``);
- ``OwnImports``: a file's own imports of the tree's files, from its conversion's parse.

Records are small, picklable data (names, no syntax tree): the main process merges them
(``tree_pass``) and hands each file's facts to its conversion.
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass

from .aliases import dotted, exported_aliases, torch_aliases
from .tree import FileIndex, index_file, module_name

# Bytes that make a file worth a step index: it runs backward, or names a scaler or an accelerator.
STEP_HINTS = (b".backward(", b"scaler", b"Scaler", b"Accelerator")

# Where ``from <module> import name`` reads in the tree: (file, name); file None: outside it.
Origin = tuple[str | None, str]


@dataclass(frozen=True)
class ModuleSummary:
    # torch aliases the module hands to `from module import *`
    exported: dict[str, str]
    # every torch alias the module binds
    aliases: dict[str, str]
    # top-level classes (the first definition of each name): the dotted names of their bases
    # (None where a base is no Name/Attribute chain)
    classes: dict[str, tuple[str | None, ...]]
    # names imported by top-level `from ... import` (the first import of each name):
    # local name -> where it is read from
    imports: dict[str, Origin]


@dataclass(frozen=True)
class FileRecord:
    """The index entry of a file other files read facts from (or of a file with step hints)."""

    path: str  # absolute
    summary: ModuleSummary | None  # None: unreadable or not Python
    steps: FileIndex | None = None  # step facts, for the files with STEP_HINTS
    hinted: bool = False  # the file has STEP_HINTS


@dataclass(frozen=True)
class Scan:
    """What the cheap first look at a file's bytes tells: the files of the tree its top-level
    ``from ... import`` read (the files whose summaries the tree needs), and its step hints."""

    path: str  # as the task names it
    reads: tuple[str, ...]
    hinted: bool


@dataclass(frozen=True)
class OwnImports:
    """A file's own top-level ``from ... import`` of the tree's files, from its ``ast``."""

    # every `from ... import name [as local]`: (where it is read from, local)
    names: tuple[tuple[Origin, str], ...] = ()
    # the tree's files its `from ... import *` read, in order
    stars: tuple[str, ...] = ()
    has_import: bool = False  # "import" in its text
    has_star: bool = False  # "import *" in its text


# A top-level `from <module> import` (a statement at column 0); a file that hides one (after a
# `;`) has its summary read when it is first asked for (``tree_pass``).
_FROM = re.compile(
    rb"^from(?:[ \t]+|(?=\.))(\.*)[ \t]*([\w.]*)[ \t]+import\b", re.MULTILINE
)


def scan(path: str, display: str, data: bytes, root: str) -> Scan:
    reads: dict[str, None] = {}
    for dots, module in _FROM.findall(data):
        try:
            name = module.decode("ascii") or None
        except UnicodeDecodeError:
            continue
        found = module_file_of(path, root, len(dots), name)
        if found is not None:
            reads[found] = None
    return Scan(path, tuple(reads), any(hint in data for hint in STEP_HINTS))


def module_file_of(path: str, root: str, level: int, module: str | None) -> str | None:
    """The file in the tree that ``from <module> import ...`` (``level`` dots) in the file at
    ``path`` imports from, if any."""
    root = os.path.abspath(root)
    if level:
        base = os.path.dirname(os.path.abspath(path))
        for _ in range(level - 1):
            base = os.path.dirname(base)
    else:
        # An absolute import names the tree's top package (`timm.layers.x` inside `timm/`).
        base = os.path.dirname(root)
    parts = module.split(".") if module else []
    candidate = os.path.join(base, *parts)
    for option in (candidate + ".py", os.path.join(candidate, "__init__.py")):
        if os.path.isfile(option) and (option + os.sep).startswith(root + os.sep):
            return option
    return None


def summarise(tree: ast.Module, path: str, root: str) -> ModuleSummary:
    classes: dict[str, tuple[str | None, ...]] = {}
    imports: dict[str, Origin] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            if node.name not in classes:
                classes[node.name] = tuple(dotted(base) for base in node.bases)
        elif isinstance(node, ast.ImportFrom):
            origin = None
            for alias in node.names:
                local = alias.asname or alias.name
                if alias.name != "*" and local not in imports:
                    if origin is None:
                        origin = module_file_of(path, root, node.level, node.module)
                    imports[local] = (origin, alias.name)
    return ModuleSummary(exported_aliases(tree), torch_aliases(tree), classes, imports)


def base_of(root: str) -> str:
    """The folder module names start from: a tree that is itself a package names its modules
    from above it (`timm.utils.cuda`)."""
    return (
        root
        if not os.path.isfile(os.path.join(root, "__init__.py"))
        else os.path.dirname(root)
    )


def record(
    path: str,
    display: str,
    data: bytes,
    text: str | None,
    tree: ast.Module | None,
    root: str,
) -> FileRecord:
    """The index entry of the file at ``path`` from its bytes, its decoded text and its ``ast``
    (None where it does not decode or parse)."""
    given, path, root = path, os.path.abspath(path), os.path.abspath(root)
    hinted = any(hint in data for hint in STEP_HINTS)
    steps = _step_index(given, display, data, text, tree, root) if hinted else None
    if tree is None or text is None:
        return FileRecord(path, None, steps, hinted)
    return FileRecord(path, summarise(tree, path, root), steps, hinted)


def own_imports(path: str, text: str, tree: ast.Module | None, root: str) -> OwnImports:
    """The file's own top-level imports of the tree's files (nothing where it does not parse)."""
    if tree is None:
        return OwnImports()
    names: list[tuple[Origin, str]] = []
    stars: list[str] = []
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom):
            continue
        origin = module_file_of(path, root, node.level, node.module)
        for alias in node.names:
            if alias.name != "*":
                names.append(((origin, alias.name), alias.asname or alias.name))
        if origin is not None and any(a.name == "*" for a in node.names):
            stars.append(origin)
    return OwnImports(tuple(names), tuple(stars), "import" in text, "import *" in text)


def step_index(
    path: str,
    display: str,
    data: bytes,
    text: str | None,
    tree: ast.Module | None,
    root: str,
) -> FileIndex | None:
    """The step facts of a file, from the conversion's parse where its text is the file's UTF-8
    text (the step pass reads files as UTF-8)."""
    return _step_index(path, display, data, text, tree, os.path.abspath(root))


def _step_index(path, display, data, text, tree, root) -> FileIndex | None:
    try:
        utf8 = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if utf8 != text or tree is None:
        try:
            tree = ast.parse(utf8)
        except (SyntaxError, ValueError):
            return None
    return index_file(path, display, utf8, module_name(path, base_of(root)), tree)


def read_summary(path: str, root: str) -> ModuleSummary | None:
    """The summary of a file of the tree that no task read (one left out of the run)."""
    try:
        with open(path, "rb") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError):
        return None
    return summarise(tree, os.path.abspath(path), os.path.abspath(root))
