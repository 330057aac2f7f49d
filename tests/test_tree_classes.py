"""Module classes that reach a file from other files of its tree: a class deriving from one (through
an import, a package re-export, or a chain of bases) is a Module too, so its `forward` becomes
`construct`, also in a file that never names torch. Files converted one by one know nothing of
the others."""

from __future__ import annotations

import ast
import os

from torch2ms.migrator import tree_pass
from torch2ms.migrator.context import Options
from torch2ms.migrator.runner import plan, run


def module_classes(path: str, text: str, root: str | None) -> frozenset[str]:
    """The Module classes the file imports, as its conversion in a run finds them."""
    if root is not None:
        files = [
            (os.path.join(folder, name), name)
            for folder, _, names in os.walk(root)
            for name in names
        ]
        tree_pass.install(tree_pass.index_tree(files, root).tables)
    return tree_pass.file_facts(path, root, text, ast.parse(text))[1]

FILES = {
    "pkg/__init__.py": "from .base import Base\n",
    "pkg/base.py": (
        "import torch.nn as nn\n\n"
        "class Base(nn.Module):\n"
        "    def forward(self, x):\n"
        "        raise NotImplementedError\n\n"
        "class Middle(Base):\n"
        "    pass\n"
    ),
    "pkg/task.py": (
        "import torch\n"
        "from . import Base\n"
        "from .base import Middle\n\n"
        "class Task(Middle):\n"
        "    def forward(self, x):\n"
        "        return torch.relu(x)\n\n"
        "class Other(Base):\n"
        "    def forward(self, x):\n"
        "        return x\n"
    ),
    "pkg/plain.py": (
        "from .base import Base\n\n"
        "class Twice(Base):\n"
        "    def forward(self, x):\n"
        "        return x * 2\n"
    ),
    "pkg/unrelated.py": (
        "import json\n\n"
        "class Config(json.JSONEncoder):\n"
        "    def forward(self, x):\n"
        "        return x\n"
    ),
}


def _tree(tmp_path) -> str:
    for name, text in FILES.items():
        path = tmp_path / "src" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return str(tmp_path / "src" / "pkg")


def test_imported_module_classes_are_found(tmp_path):
    root = _tree(tmp_path)
    task = os.path.join(root, "task.py")
    assert module_classes(task, FILES["pkg/task.py"], root) == {"Base", "Middle"}
    unrelated = os.path.join(root, "unrelated.py")
    assert module_classes(unrelated, FILES["pkg/unrelated.py"], root) == frozenset()
    # a lone file has no tree
    assert module_classes(task, FILES["pkg/task.py"], None) == frozenset()


def test_forward_of_subclasses_in_other_files_becomes_construct(tmp_path):
    root = _tree(tmp_path)
    out = tmp_path / "out"
    run(plan([root], str(out)), Options(), jobs=1)
    task = (out / "task.py").read_text(encoding="utf-8")
    assert task.count("def construct(self, x):") == 2
    assert "def forward" not in task
    plain = (out / "plain.py").read_text(encoding="utf-8")
    assert "def construct(self, x):" in plain
    # a class of another kind keeps its method
    assert (out / "unrelated.py").read_text(encoding="utf-8") == FILES[
        "pkg/unrelated.py"
    ]
    again = tmp_path / "again"
    run(plan([str(out)], str(again)), Options(), jobs=1)
    for name in ("task.py", "plain.py", "base.py"):
        assert (again / name).read_text(encoding="utf-8") == (out / name).read_text(
            encoding="utf-8"
        )
