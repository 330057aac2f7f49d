"""The cross-file facts (star-import aliases, Module classes) come from one summary per file: a
file another file imports from is read and parsed once per process, whichever facts are asked of
it, and a file converted in the process gives its summary from its own parse."""

from __future__ import annotations

import ast
import os

from torch2ms.migrator import tree_index
from torch2ms.migrator.star_imports import inherited_aliases
from torch2ms.migrator.tree_classes import module_classes

FILES = {
    "pkg/__init__.py": "",
    "pkg/base.py": (
        "import torch\nimport torch.nn as nn\n\nclass Base(nn.Module):\n    pass\n"
    ),
    "pkg/user.py": (
        "from .base import *\n"
        "from .base import Base\n\n"
        "class Head(Base):\n"
        "    def forward(self, x):\n"
        "        return torch.relu(x)\n"
    ),
}


def _tree(tmp_path) -> str:
    for name, text in FILES.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return str(tmp_path / "pkg")


def _counting(monkeypatch) -> list[str]:
    parsed: list[str] = []
    real = tree_index.summarise

    def summarise(tree):
        parsed.append(ast.dump(tree)[:40])
        return real(tree)

    monkeypatch.setattr(tree_index, "summarise", summarise)
    monkeypatch.setattr(tree_index, "_SUMMARIES", {})
    return parsed


def test_one_summary_serves_star_imports_and_module_classes(tmp_path, monkeypatch):
    root = _tree(tmp_path)
    parsed = _counting(monkeypatch)
    user = os.path.join(root, "user.py")
    text = FILES["pkg/user.py"]
    assert inherited_aliases(user, text, root) == {"torch": "torch", "nn": "torch.nn"}
    assert module_classes(user, text, root) == frozenset({"Base"})
    assert len(parsed) == 1  # base.py, once for both kinds of fact


def test_a_converted_file_is_not_parsed_again(tmp_path, monkeypatch):
    root = _tree(tmp_path)
    _counting(monkeypatch)
    base = os.path.join(root, "base.py")
    tree_index.remember(base, ast.parse(FILES["pkg/base.py"]))
    os.remove(base)  # only the summary kept from the conversion's parse can answer now
    found = tree_index.summary(base)
    assert found is not None
    assert found.classes == {"Base": ("nn.Module",)}
    assert found.exported == {"torch": "torch", "nn": "torch.nn"}
