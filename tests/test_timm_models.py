"""The whole path on real timm code: convert timm, convert a checkpoint, run the model on MindSpore
with torch and torchvision unimportable, and compare the logits with torch's.

Two small models of the panel in ``benchmarks/timm_models.py`` run here; the benchmark runs all ten
and measures speed against mindcv.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest
from conftest import require_module

pytestmark = [pytest.mark.real, pytest.mark.slow]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = ("resnet18", "vit_tiny_patch16_224")
IMPORT_TIMM = (
    "import sys; sys.modules['torch'] = None; sys.modules['torchvision'] = None; "
    "sys.path.insert(0, sys.argv[1]); import timm; print(len(timm.list_models()))"
)


def _benchmark():
    path = os.path.join(ROOT, "benchmarks", "timm_models.py")
    spec = importlib.util.spec_from_file_location("timm_models", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["timm_models"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def converted_timm(tmp_path_factory):
    require_module("torch")
    require_module("mindspore")
    timm = require_module("timm")
    bench = _benchmark()
    assert timm.__version__ == bench.TIMM_VERSION
    source = os.path.dirname(os.path.dirname(timm.__file__))
    work = str(tmp_path_factory.mktemp("timm"))
    converted, summary = bench.convert_timm(source, work)
    return bench, source, converted, summary, work


def test_converted_timm_imports_without_torch(converted_timm) -> None:
    _, _, converted, summary, _ = converted_timm
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_TIMM, converted],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout.split()[-1]) > 1000  # models registered
    # Files of timm/models and timm/layers import torch only inside functions that still use it.
    for path in summary["files_need_torch_list"]:
        if "/timm/models/" in path or "/timm/layers/" in path:
            relative = path.split("/timm/", 1)[1]
            with open(
                os.path.join(converted, "timm", relative), encoding="utf-8"
            ) as handle:
                assert "\nimport torch\n" not in handle.read(), relative


@pytest.mark.parametrize("name", MODELS)
def test_converted_model_gives_torchs_logits(converted_timm, name: str) -> None:
    bench, source, converted, _, work = converted_timm
    record = bench.compare(name, source, converted, work, repeat=1, mindcv=False)
    assert "error" not in record, record.get("error")
    assert record["unloaded"] == [] and record["unused"] == []
    assert record["match"], f"max diff {record['max_diff']:.3e}"
