"""A light pass over ``ast`` that resolves the names a module binds to torch.

LibCST's QualifiedNameProvider costs several parses; the import statements are all we need.
"""

from __future__ import annotations

import ast
from collections import deque

TORCH_ROOT = "torch"
# torch-only packages whose names resolve like torch's, so that tables can map them; a use that
# nothing maps stays on the package, reported as torch-only (TM901).
RESOLVED_PACKAGES = ("torchvision",)
# Packages that only exist for torch; their imports cannot be translated mechanically.
TORCH_ONLY_PACKAGES = frozenset(
    {
        "torchvision",
        "torchaudio",
        "torchtext",
        "pytorch_lightning",
        "lightning",
        "torchmetrics",
        "apex",
    }
)


def is_torch(qualified: str) -> bool:
    return qualified == TORCH_ROOT or qualified.startswith(TORCH_ROOT + ".")


def resolved_root(qualified: str) -> str | None:
    """``torch`` or the resolved torch-only package that ``qualified`` lies in, else None."""
    root = qualified.split(".", 1)[0]
    return root if root == TORCH_ROOT or root in RESOLVED_PACKAGES else None


def torch_aliases(tree: ast.Module) -> dict[str, str]:
    """Map each local name bound by a torch (or torchvision) import, anywhere in the module, to
    its qualified name."""
    aliases: dict[str, str] = {}
    for node in _statements(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                root = resolved_root(alias.name)
                if root is None:
                    continue
                if alias.asname:
                    aliases[alias.asname] = alias.name
                else:
                    # ``import torch.nn`` binds ``torch``.
                    aliases[root] = root
        elif isinstance(node, ast.ImportFrom):
            if node.level or not node.module or resolved_root(node.module) is None:
                continue
            for alias in node.names:
                if alias.name == "*":
                    continue
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return aliases


_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def _statements(tree: ast.Module):
    """Statements breadth first, in ``ast.walk`` order; imports are statements, so expressions
    (most of the tree) need no visit."""
    queue = deque([tree])
    while queue:
        node = queue.popleft()
        yield node
        for name in _BLOCKS:
            block = getattr(node, name, None)
            if block:
                queue.extend(block)


_STATEMENT_NODES = (ast.stmt, ast.excepthandler, ast.match_case)


def statements(tree: ast.AST):
    """The statements of ``tree`` (with except handlers and match cases) in exactly the order
    ``ast.walk`` yields them, without entering expressions: no statement lies inside one."""
    queue = deque([tree])
    pop = queue.popleft
    push = queue.append
    kinds = _STATEMENT_NODES
    while queue:
        node = pop()
        yield node
        for name in node._fields:
            value = getattr(node, name, None)
            if value.__class__ is list:
                for item in value:
                    if isinstance(item, kinds):
                        push(item)


def walk_order(tree: ast.AST) -> list[ast.AST]:
    """Every node under ``tree`` (itself first), in ``ast.walk``'s order, without its generators."""
    out = [tree]
    append = out.append
    node_class = ast.AST
    for node in out:
        for name in node._fields:
            value = getattr(node, name, None)
            if value.__class__ is list:
                for item in value:
                    if isinstance(item, node_class):
                        append(item)
            elif isinstance(value, node_class):
                append(value)
    return out


def dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a pure Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def resolve(dotted_name: str, aliases: dict[str, str]) -> str | None:
    head, _, rest = dotted_name.partition(".")
    target = aliases.get(head)
    if target is None:
        return None
    return self_reference_dropped(f"{target}.{rest}" if rest else target)


# What torch.functional defines and torch exports as its own (`torch.functional.norm` is
# `torch.norm`, the same object).
TORCH_FUNCTIONAL = frozenset(
    {
        "atleast_1d",
        "atleast_2d",
        "atleast_3d",
        "broadcast_shapes",
        "broadcast_tensors",
        "cartesian_prod",
        "block_diag",
        "cdist",
        "chain_matmul",
        "einsum",
        "istft",
        "lu",
        "norm",
        "meshgrid",
        "pca_lowrank",
        "split",
        "stft",
        "svd_lowrank",
        "tensordot",
        "unique",
        "unique_consecutive",
        "unravel_index",
    }
)


# Submodules whose objects torch also exports as its own, and which of them.
EXPORTED_FROM = {
    "torch.functional.": TORCH_FUNCTIONAL,
    "torch.random.": frozenset(
        {"manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state"}
    ),
    "torch.autograd.grad_mode.": frozenset(
        {"no_grad", "enable_grad", "set_grad_enabled", "inference_mode"}
    ),
}


def self_reference_dropped(qualified: str) -> str:
    """The name torch exports an object under: ``torch.torch.finfo`` is ``torch.finfo`` (the
    torch module holds itself as ``torch``), ``torch.functional.norm`` is ``torch.norm``."""
    while qualified.startswith("torch.torch."):
        qualified = qualified[6:]
    if qualified.startswith(
        ("torch.functional.", "torch.random.", "torch.autograd.grad_mode.")
    ):
        module, _, name = qualified.rpartition(".")
        if name in EXPORTED_FROM.get(module + ".", ()):
            qualified = "torch." + name
    return qualified


def exported_aliases(tree: ast.Module) -> dict[str, str]:
    """The torch aliases a module hands to `from module import *`: its top-level ones, limited to
    ``__all__`` when it has one, else the public names."""
    aliases = {}
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            aliases.update(torch_aliases(ast.Module(body=[node], type_ignores=[])))
    names = _dunder_all(tree)
    return {
        local: target
        for local, target in aliases.items()
        if (local in names if names is not None else not local.startswith("_"))
    }


def _dunder_all(tree: ast.Module) -> set[str] | None:
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
            and isinstance(node.value, (ast.List, ast.Tuple))
        ):
            return {
                e.value
                for e in node.value.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)
            }
    return None
