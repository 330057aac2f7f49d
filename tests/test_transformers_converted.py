"""Hugging Face transformers converted whole runs where torch cannot be imported.

The modules BERT, Llama and T5 need (the closure of their imports, with the package folders they
enter) are converted with the CLI; then, in processes where importing torch fails:
- `import transformers` from the converted tree works and its backend probe answers True;
- BERT, Llama and T5, built from small configs and loaded from `torch2ms weights` checkpoints of
  torch's models (seed 0, eval, eager attention), give torch's outputs with nothing unloaded or
  unused (T5 reads its embeddings through torch's names and ties them).

The path is the one `benchmarks/transformers_models.py` measures on all five models.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest
from conftest import require_module

pytestmark = [pytest.mark.real, pytest.mark.slow]

_BENCHMARK = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
    "benchmarks",
    "transformers_models.py",
)
_PANEL = ("bert", "llama", "t5")


def _benchmark():
    spec = importlib.util.spec_from_file_location("transformers_models", _BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    """(the folder holding the original transformers, the converted tree, the benchmark)."""
    require_module("torch")
    require_module("mindspore")
    original = require_module("transformers")
    bench = _benchmark()
    if original.__version__ != bench.VERSION:
        pytest.fail(
            f"transformers {bench.VERSION} is pinned; found {original.__version__}"
        )
    source = os.path.dirname(os.path.dirname(original.__file__))
    work = str(tmp_path_factory.mktemp("transformers"))
    modules = [m for name in _PANEL for m in bench.MODULES[name]]
    tree, summary = bench.convert(source, work, modules)
    assert summary["files_failed"] == 0
    assert summary["findings_by_rule"].get("TM999", 0) == 0
    return source, tree, work, bench


_IMPORT_CHECK = """
import sys
sys.meta_path.insert(0, type("Blocker", (), {"find_spec": staticmethod(
    lambda name, path=None, target=None: (_ for _ in ()).throw(ModuleNotFoundError(name))
    if name.split(".")[0] == "torch" else None)})())
sys.path.insert(0, sys.argv[1])
import transformers
from transformers.utils import is_torch_available
assert transformers.__file__.startswith(sys.argv[1]), transformers.__file__
print(is_torch_available(), transformers.BertConfig.__name__)
"""


def test_import_transformers_without_torch(converted) -> None:
    _, tree, _, _ = converted
    done = subprocess.run(
        [sys.executable, "-c", _IMPORT_CHECK, tree],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "BertConfig"]


@pytest.mark.parametrize("name", _PANEL)
def test_model_gives_torchs_outputs(converted, name: str) -> None:
    source, tree, work, bench = converted
    record = bench.compare(name, source, tree, work, sys.executable, repeat=0)
    assert "error" not in record, record["error"]
    assert record["unloaded"] == [] and record["unused"] == []
    assert record["match"], f"max diff {record['max_diff']:.3e}"
