"""The whole path on real timm code: convert timm, convert a checkpoint, run the model on MindSpore
with torch and torchvision unimportable, and compare the logits with torch's.

Two small models of the panel in ``benchmarks/timm_models.py`` run here; the benchmark runs all ten
and measures speed against mindcv.
"""

from __future__ import annotations

import importlib.util
import os
import sys

import pytest
from conftest import require_module

pytestmark = [pytest.mark.real, pytest.mark.slow]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = ("resnet18", "vit_tiny_patch16_224")


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


def test_converted_timm_models_and_layers_need_no_torch(converted_timm) -> None:
    *_, summary, _ = converted_timm
    left = [
        p
        for p in summary["files_need_torch_list"]
        if "/timm/models/" in p or "/timm/layers/" in p
    ]
    assert left == []


@pytest.mark.parametrize("name", MODELS)
def test_converted_model_gives_torchs_logits(converted_timm, name: str) -> None:
    bench, source, converted, _, work = converted_timm
    record = bench.compare(name, source, converted, work, repeat=1, mindcv=False)
    assert "error" not in record, record.get("error")
    assert record["unloaded"] == [] and record["unused"] == []
    assert record["match"], f"max diff {record['max_diff']:.3e}"
