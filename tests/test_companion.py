"""The companion module: assembly from the library, where it is written, how files import it, and
function-local torch imports for what is left on torch."""

from __future__ import annotations

import ast
import os
import subprocess
import sys

import pytest
from conftest import convert_checked
from torch2ms.migrator.companion import CompanionError, site_for, write_companion
from torch2ms.rules.companion import (
    MARKER,
    assemble,
    closure,
    entries_in,
    entry_names,
    is_companion,
)


def test_every_library_entry_assembles_into_a_module_that_compiles() -> None:
    text = assemble(entry_names())
    assert is_companion(text)
    compile(text, "ms_aux.py", "exec")
    assert entries_in(text) == set(entry_names())


def test_a_module_holds_only_what_is_asked_and_what_it_needs() -> None:
    text = assemble(["roll"])
    tree = ast.parse(text)
    names = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert names == ["roll"]
    assert "from mindspore import ops" in text
    assert entries_in(text) == {"roll"}


def test_unknown_entries_are_an_error() -> None:
    with pytest.raises(KeyError, match="no_such_entry"):
        closure(["no_such_entry"])


def _tree(tmp_path, layout: dict[str, str]) -> str:
    for relative, text in layout.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return str(tmp_path)


def test_site_inside_a_package_is_its_top_package(tmp_path) -> None:
    root = _tree(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/sub/__init__.py": "", "pkg/sub/m.py": ""},
    )
    out = os.path.join(root, "out")
    folder, spec = site_for(
        os.path.join(root, "pkg/sub/m.py"),
        os.path.join(root, "pkg"),
        os.path.join(out, "sub/m.py"),
    )
    assert (folder, spec.dots) == (out, 2)
    folder, spec = site_for(
        os.path.join(root, "pkg/sub/m.py"), root, os.path.join(out, "pkg/sub/m.py")
    )
    assert (folder, spec.dots) == (os.path.join(out, "pkg"), 2)


def test_site_of_a_script_is_its_own_folder(tmp_path) -> None:
    root = _tree(tmp_path, {"mnist/main.py": ""})
    folder, spec = site_for(
        os.path.join(root, "mnist/main.py"), root, os.path.join(root, "o/mnist/main.py")
    )
    assert (folder, spec.dots) == (os.path.join(root, "o/mnist"), 0)


def test_write_companion_merges_and_never_overwrites_a_users_file(tmp_path) -> None:
    path = write_companion(str(tmp_path), ["roll"])
    with open(path) as handle:
        assert entries_in(handle.read()) == {"roll"}
    write_companion(str(tmp_path), [])
    with open(path) as handle:
        assert entries_in(handle.read()) == {"roll"}
    other = tmp_path / "theirs"
    other.mkdir()
    (other / "ms_aux.py").write_text("x = 1\n")
    with pytest.raises(CompanionError, match="not written by torch2ms"):
        write_companion(str(other), ["roll"])
    assert (other / "ms_aux.py").read_text() == "x = 1\n"


ROLL = "import torch\n\ndef f(x):\n    return torch.roll(x, 1, 0)\n"


def test_a_call_without_a_cpu_kernel_goes_to_the_companion() -> None:
    result = convert_checked(ROLL)
    assert "import ms_aux\n" in result.code
    assert "ms_aux.roll(x, 1, 0)" in result.code
    assert "torch" not in result.code
    assert result.companion == frozenset({"roll"})


def test_on_ascend_the_idiom_stays_first() -> None:
    result = convert_checked(ROLL, target="ascend")
    assert "ms_aux" not in result.code


def test_a_converted_tree_imports_its_companion_and_converts_again_to_itself(
    tmp_path,
) -> None:
    src = _tree(
        tmp_path / "src",
        {
            "pkg/__init__.py": "",
            "pkg/sub/__init__.py": "",
            "pkg/sub/m.py": ROLL,
            "pkg/top.py": ROLL,
            "tool.py": ROLL,
        },
    )
    out = tmp_path / "out"
    cli = [sys.executable, "-m", "torch2ms", "convert"]
    subprocess.run([*cli, src, "-o", str(out), "-q"], check=True)
    assert "from .. import ms_aux" in (out / "pkg/sub/m.py").read_text()
    assert "from . import ms_aux" in (out / "pkg/top.py").read_text()
    assert "import ms_aux" in (out / "tool.py").read_text()
    for folder in (out / "pkg", out):
        assert (folder / "ms_aux.py").read_text().startswith(MARKER)
    assert not (out / "pkg/sub/ms_aux.py").exists()
    again = tmp_path / "again"
    subprocess.run([*cli, str(out), "-o", str(again), "-q"], check=True)
    for relative in ("pkg/sub/m.py", "pkg/top.py", "tool.py", "pkg/ms_aux.py"):
        assert (again / relative).read_text() == (out / relative).read_text()


def test_torch_left_in_a_function_is_imported_there() -> None:
    source = (
        "import torch\n\n"
        "def wait(group):\n"
        '    """Wait for every process."""\n'
        "    return torch.distributed.barrier(group)\n\n"
        "def act(x):\n"
        "    return torch.relu(x)\n\n"
        "def g(x): return torch.take(x, x)\n"
    )
    code = convert_checked(source).code
    assert not code.lstrip().startswith("import torch")
    assert '    """Wait for every process."""\n    import torch\n' in code
    assert "def g(x): import torch; return torch.take(x, x)\n" in code
    assert "return ops.relu(x)" in code


def test_module_level_use_keeps_one_import_at_the_top() -> None:
    source = (
        "import torch\n\n"
        "COLLECTED = torch.cuda.ipc_collect()\n\n"
        "def g(x):\n"
        "    return torch.take(x, x)\n"
    )
    code = convert_checked(source).code
    assert code.count("import torch") == 1
    assert "\nimport torch\n" in "\n" + code


def test_a_run_in_place_writes_the_entries_its_files_already_use(tmp_path) -> None:
    """After a stopped run, converting again in place restores a companion module the files
    already import."""
    src = _tree(
        tmp_path, {"tool.py": ROLL, "other.py": "import torch\nx = torch.zeros(2)\n"}
    )
    cli = [sys.executable, "-m", "torch2ms", "convert", src, "-q"]
    subprocess.run([*cli, "--in-place"], check=True)
    companion = tmp_path / "ms_aux.py"
    first = companion.read_text()
    companion.unlink()
    subprocess.run([*cli, "--in-place"], check=True)
    assert companion.read_text() == first
    assert entries_in(first) == {"roll"}


def test_torch_names_received_through_a_star_import_are_converted(tmp_path) -> None:
    src = _tree(
        tmp_path / "src",
        {
            "pkg/__init__.py": "",
            "pkg/acts.py": "import torch\nfrom torch import nn\nimport torch.nn.functional as F\n",
            "pkg/create.py": (
                "from .acts import *\n\n"
                "class Act(nn.Module):\n"
                "    def forward(self, x):\n"
                "        return F.relu(x)\n"
            ),
        },
    )
    out = tmp_path / "out"
    cli = [sys.executable, "-m", "torch2ms", "convert", src, "-q"]
    subprocess.run([*cli, "-o", str(out)], check=True)
    code = (out / "pkg/create.py").read_text()
    assert "class Act(nn.Cell):" in code
    assert "return ops.relu(x)" in code
    assert "torch" not in code


def test_a_torch_type_left_in_an_annotation_is_text_and_needs_no_import() -> None:
    source = (
        "import torch\nfrom typing import Optional\n\n"
        "def f(x, s: Optional[torch.cuda.Event] = None) -> torch.cuda.Event:\n"
        "    return s\n"
    )
    result = convert_checked(source)
    assert (
        's: Optional["torch.cuda.Event"] = None) -> "torch.cuda.Event":' in result.code
    )
    assert "import torch" not in result.code
    assert "in an annotation has no MindSpore type" in result.findings[0].message


def test_a_generator_annotation_names_the_companion_generator() -> None:
    """`torch.Generator()` calls build the companion Generator, so annotations name it too."""
    source = (
        "import torch\nfrom typing import Optional\n\n"
        "def f(n, g: Optional[torch.Generator] = None):\n"
        "    return torch.randperm(n, generator=g)\n\n"
        "x = f(4, torch.Generator().manual_seed(0))\n"
    )
    result = convert_checked(source)
    assert "def f(n, g: Optional[ms_aux.Generator] = None):" in result.code
    assert "x = f(4, ms_aux.Generator().manual_seed(0))" in result.code
    assert "torch" not in result.code and not result.findings
