"""The companion module: what has no one-line MindSpore idiom, written beside the converted code.

Three tiers, in this order: the MindSpore idiom where the call site is visible and the mapping is
certain; a companion entry where it is not (a layer class passed as a value or subclassed, a call
whose arguments cannot be mapped one by one, a function without a kernel on the target, torch-only
plumbing); a finding where neither is certain.

The entries live in ``library/*.py`` as ordinary MindSpore code. Each top-level class, function or
assignment there is one entry; ``assemble`` copies the entries a tree uses, with the entries and
imports they need, into one self-contained module (``ms_aux.py``) that the converted files import.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from functools import lru_cache

from .table import CALL_ONLY, ENTRIES, ENTRY_TARGETS, VALUE_ONLY

MODULE = "ms_aux"
FILENAME = MODULE + ".py"
# The first line of every companion module: a file without it is the user's, never overwritten.
MARKER = '"""Companion module written by torch2ms'
LIBRARY = os.path.join(os.path.dirname(__file__), "library")
# Library files in the order their entries appear in an assembled module.
LIBRARY_FILES = (
    "plumbing.py",
    "backend_flags.py",
    "probes.py",
    "bindings.py",
    "distributed.py",
    "export.py",
    "runtime.py",
    "functional.py",
    "methods.py",
    "tensor_ops.py",
    "torch_functions.py",
    "reductions.py",
    "spectral.py",
    "tensor_methods.py",
    "layers.py",
    "attention.py",
    "transformer.py",
    "parameters.py",
    "containers.py",
    "module_members.py",
    "recurrent.py",
    "nn_utils.py",
    "nn_extra.py",
    "sdpa_backends.py",
    "losses.py",
    "conv_transpose.py",
    "unpooling.py",
    "lazy.py",
    "resampling.py",
    "layers_more.py",
    "adaptive_softmax.py",
    "optim.py",
    "foreach.py",
    "gradients.py",
    "checkpoint.py",
    "optim_state.py",
    "data.py",
    "loading.py",
    "distributions.py",
    "distribution_transforms.py",
    "autograd_functional.py",
    "grad_mode.py",
    "nn_lookup.py",
    "outputs.py",
    "windows.py",
    "fft.py",
    "special.py",
    "linalg.py",
    "weight_norm.py",
    "membership.py",
    "device_probes.py",
    "namespace.py",
    "index_math.py",
    "tracing.py",
    "masked.py",
    "gumbel.py",
)

HEADER = '''"""Companion module written by torch2ms for the code converted beside it.

It holds what has no one-line MindSpore idiom: layer classes that take torch's constructor
arguments (they flow as values, or are subclassed), functions composed from operators that have
kernels on the target, and stand-ins for torch-only plumbing, each saying what it does.
Only the entries this tree uses are here. Entries: {names}.
"""
'''


@dataclass(frozen=True)
class _Entry:
    name: str
    source: str
    needs: frozenset[str]  # other entries and imported names it reads


@dataclass(frozen=True)
class _Library:
    entries: dict[str, _Entry]
    order: tuple[str, ...]
    # bound name -> (module it is imported from, "" for `import x`; the imported name as written)
    imports: dict[str, tuple[str, str]]


@lru_cache(maxsize=1)
def _library() -> _Library:
    entries: dict[str, _Entry] = {}
    order: list[str] = []
    imports: dict[str, tuple[str, str]] = {}
    for filename in LIBRARY_FILES:
        path = os.path.join(LIBRARY, filename)
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        tree = ast.parse(text, filename=path)
        for node in tree.body:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    bound = alias.asname or alias.name.split(".")[0]
                    imports[bound] = ("", _alias(alias))
                continue
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    continue  # another library file's entries: pulled in as entries
                module = node.module or ""
                for alias in node.names:
                    imports[alias.asname or alias.name] = (module, _alias(alias))
                continue
            names = _bound(node)
            if not names:
                continue  # the module docstring
            source = _segment(text, node)
            needs = _free_names(node)
            for name in names:
                if name in entries:
                    raise ValueError(f"companion entry {name} defined twice")
                entries[name] = _Entry(name, source, needs - {name})
            order.append(names[0])
    shadowed = sorted(set(entries) & set(imports))
    if shadowed:
        # One module holds every entry: an import would rebind an entry's name there.
        raise ValueError(f"companion entries named like an import: {', '.join(shadowed)}")
    return _Library(entries, tuple(order), imports)


def _free_names(node: ast.stmt) -> frozenset[str]:
    """The names an entry reads that it does not bind itself: a function's parameters and
    local variables (`mode`, `dim`) are not the entries of those names."""
    read, local = set(), set()
    # Every node under ``node``, as ``ast.walk`` sees them (the order is of no matter).
    stack: list[ast.AST] = [node]
    while stack:
        inner = stack.pop()
        if inner.__class__ is ast.Name:
            (read if inner.ctx.__class__ is ast.Load else local).add(inner.id)
            continue
        if inner.__class__ is ast.arg:
            local.add(inner.arg)
        for name in inner._fields:
            value = getattr(inner, name, None)
            if value.__class__ is list:
                stack.extend(item for item in value if isinstance(item, ast.AST))
            elif isinstance(value, ast.AST):
                stack.append(value)
    return frozenset(read - (local - set(_bound(node))))


def _bound(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


def _segment(text: str, node: ast.stmt) -> str:
    """The node's source with its decorators and the comment lines right above it."""
    lines = text.splitlines()
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    while first > 1 and lines[first - 2].lstrip().startswith("#"):
        first -= 1
    return "\n".join(lines[first - 1 : node.end_lineno])


def entry_names() -> tuple[str, ...]:
    return _library().order


def closure(names) -> list[str]:
    """``names`` and every entry they need, in library order."""
    library = _library()
    wanted: set[str] = set()
    stack = [n for n in names if n in library.entries]
    missing = [n for n in names if n not in library.entries]
    if missing:
        raise KeyError(f"no companion entry named {', '.join(sorted(missing))}")
    while stack:
        name = stack.pop()
        if name in wanted:
            continue
        wanted.add(name)
        stack.extend(n for n in library.entries[name].needs if n in library.entries)
    return [n for n in library.order if n in wanted]


def assemble(names) -> str:
    """The text of a companion module holding ``names`` and what they need."""
    library = _library()
    selected = closure(names)
    plain: set[str] = set()
    froms: dict[str, set[str]] = {}
    for name in selected:
        for bound in library.entries[name].needs:
            found = library.imports.get(bound)
            if found is None:
                continue
            module, imported = found
            if module:
                froms.setdefault(module, set()).add(imported)
            else:
                plain.add(imported)
    lines = [f"import {name}" for name in sorted(plain)] + [
        f"from {module} import {', '.join(sorted(names))}"
        for module, names in sorted(froms.items())
    ]
    public = [n for n in selected if not n.startswith("_")]
    parts = [HEADER.format(names=", ".join(public) or "none")]
    if lines:
        parts.append("\n".join(lines) + "\n")
    for name in selected:
        parts.append("\n" + library.entries[name].source + "\n")
    return "\n".join(parts)


def _alias(alias: ast.alias) -> str:
    return f"{alias.name} as {alias.asname}" if alias.asname else alias.name


def entries_in(text: str) -> set[str]:
    """The entries an existing companion module holds (to merge with a new conversion's)."""
    tree = ast.parse(text)
    library = _library()
    found: set[str] = set()
    for node in tree.body:
        for name in _bound(node):
            if name in library.entries:
                found.add(name)
    return found


def is_companion(text: str) -> bool:
    return text.startswith(MARKER)


def entry_for(torch_name: str, target: str, call: bool = False) -> str | None:
    """The companion entry that stands for ``torch_name`` on ``target``, if any (``call``: for a
    call of it, which value-only entries do not serve)."""
    name = ENTRIES.get(torch_name)
    if name is None and torch_name.startswith("torch.nn.modules."):
        # torch re-exports each layer class as `torch.nn.modules.<Class>` too.
        leaf = torch_name[len("torch.nn.modules.") :]
        if "." not in leaf and leaf[:1].isupper():
            name = ENTRIES.get("torch.nn." + leaf)
    if (
        name is None
        or (call and name in VALUE_ONLY)
        or (not call and name in CALL_ONLY)
    ):
        return None
    targets = ENTRY_TARGETS.get(name)
    if targets is not None and target not in targets:
        return None
    return name


__all__ = [
    "ENTRIES",
    "FILENAME",
    "MARKER",
    "MODULE",
    "assemble",
    "closure",
    "entries_in",
    "entry_for",
    "entry_names",
    "is_companion",
]
