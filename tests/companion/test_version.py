"""`torch.__version__` reads the companion's `torch_version`: the torch release whose behaviour the
converted code reproduces, so version tests take the branch the conversion mapped."""

from __future__ import annotations

import importlib.util
import re
import sys

import pytest
from conftest import convert_checked, require_module
from torch2ms.rules.companion import assemble

SOURCE = (
    "import re\nimport torch\n\n"
    "def version():\n"
    "    major, minor = re.match(r'(\\d+)\\.(\\d+)', torch.__version__).groups()\n"
    "    return int(major), int(minor)\n\n"
    "def message():\n"
    "    return f'torch=={torch.__version__} / {torch.version.__version__}'\n"
)


def test_version_reads_become_the_companion_constant() -> None:
    result = convert_checked(SOURCE)
    assert "re.match(r'(\\d+)\\.(\\d+)', ms_aux.torch_version)" in result.code
    assert "f'torch=={ms_aux.torch_version} / {ms_aux.torch_version}'" in result.code
    assert "import ms_aux" in result.code and "import torch" not in result.code
    assert not [f for f in result.findings if f.severity == "error"]


@pytest.mark.real
def test_the_constant_is_the_reference_torch_release(tmp_path) -> None:
    torch = require_module("torch")
    path = tmp_path / "ms_aux_version.py"
    path.write_text(assemble(["torch_version"]), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_version", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    release = module.torch_version.split("+")[0]
    # The torch release the mappings are checked against is the one installed beside MindSpore.
    assert release == torch.__version__.split("+")[0]
    assert re.match(r"(\d+)\.(\d+)", module.torch_version).groups() == tuple(
        torch.__version__.split(".")[:2]
    )
    packaging = pytest.importorskip("packaging.version")
    assert packaging.Version(module.torch_version).release == (
        packaging.Version(torch.__version__).release
    )
