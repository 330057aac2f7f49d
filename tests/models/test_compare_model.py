"""`torch2ms compare-model` on a converted model: agreement, and the first submodule named when one
constant of the conversion is wrong."""

from __future__ import annotations

import json
import os
import shutil
import sys

import pytest
from click.testing import CliRunner
from conftest import require_module
from model_support import IDS, PACKAGE, SPEC, convert_package, write_package
from torch2ms.cli.main import main

pytestmark = [pytest.mark.real, pytest.mark.slow]


@pytest.fixture(scope="module")
def trees(tmp_path_factory):
    require_module("torch")
    require_module("mindspore")
    root = str(tmp_path_factory.mktemp("compare"))
    original = write_package(root)
    return root, original, convert_package(original, root)


def _compare(original: str, converted: str, *extra: str):
    result = CliRunner().invoke(
        main,
        ["compare-model", "--original", original, "--converted", converted, "--model", SPEC,
         "--input", IDS, "--mindspore-python", sys.executable, *extra],
    )  # fmt: skip
    return result


def test_the_conversion_agrees(trees) -> None:
    _, original, converted = trees
    result = _compare(original, converted, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["status"] == "agree" and report["first_departure"] is None
    names = [m["name"] for m in report["modules"]]
    assert names[:3] == ["emb", "conv", "bn"] and names[-1] == ""
    assert all(m["status"] == "ok" for m in report["modules"])
    assert len(report["modules"]) == 11
    assert report["weights"]["tied"] == [["head.weight", "emb.weight"]]


@pytest.mark.parametrize(
    ("written", "wrong", "module", "mindspore_class"),
    [
        (
            "ms_aux.BatchNorm1d(dim, eps=1e-5)",
            "ms_aux.BatchNorm1d(dim, eps=1e-2)",
            "bn",
            "BatchNorm1d",
        ),
        (
            "LayerNorm(dim, eps=1e-5)",
            "LayerNorm(dim, eps=1e-2)",
            "blocks.0.norm",
            "LayerNorm",
        ),
        ("self.scale = 0.5", "self.scale = 0.55", "blocks.0", "Block"),
    ],
)
def test_one_wrong_constant_is_found(
    trees, written, wrong, module, mindspore_class
) -> None:
    root, original, converted = trees
    broken = os.path.join(root, "broken-" + module)
    shutil.copytree(converted, broken)
    path = os.path.join(broken, PACKAGE, "model.py")
    with open(path, encoding="utf-8") as handle:
        code = handle.read()
    assert code.count(written) == 1, code
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(code.replace(written, wrong))
    result = _compare(original, broken)
    assert result.exit_code == 1, result.output
    assert f"first departure: {module} (departs" in result.output
    where = result.output.split("first departure:", 1)[1]
    mindspore_line = next(
        x for x in where.splitlines() if x.strip().startswith("mindspore")
    )
    assert mindspore_class in mindspore_line
    if (
        module == "blocks.0"
    ):  # the converted file itself, at the line of Block.construct
        line = code.splitlines().index("    def construct(self, x):") + 1
        assert mindspore_line.endswith(f"{path}:{line}")
    assert "outputs differ" in result.output


def test_a_side_that_cannot_be_built_is_exit_2(trees) -> None:
    root, original, converted = trees
    broken = os.path.join(root, "unbuildable")
    shutil.copytree(converted, broken)
    with open(
        os.path.join(broken, PACKAGE, "model.py"), "a", encoding="utf-8"
    ) as handle:
        handle.write("\nraise ImportError('no such layer')\n")
    result = _compare(original, broken)
    assert result.exit_code == 2
    assert "converted model could not be built on mindspore" in result.output
    assert "no such layer" in result.output
