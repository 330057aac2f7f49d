"""Layers built inside a package answer torch's attribute names, wherever they are read.

A module of the package builds the layers; another reads their attributes from instances whose
kind it cannot see (`embedding.num_embeddings`, `conv.stride[0]`, `norm.weight`), and the model
ties two embeddings through torch's name. Converted as a tree, the layers are the companion
classes; the converted package runs on real MindSpore and gives torch's values. A script outside
a package keeps the idiom classes.
"""

from __future__ import annotations

import importlib
import sys

import numpy as np
import pytest
from conftest import convert_checked
from torch2ms.migrator.context import Options
from torch2ms.migrator.runner import plan, run

FILES = {
    "towers/__init__.py": "from .model import Tower\n",
    "towers/model.py": (
        "import torch.nn as nn\n\n"
        "from .sizes import out_length\n\n\n"
        "class Tower(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.shared = nn.Embedding(11, 4)\n"
        "        self.embed = nn.Embedding(11, 4)\n"
        "        self.conv = nn.Conv1d(4, 6, 3, stride=2, padding=1)\n"
        "        self.norm = nn.LayerNorm(6, eps=1e-6)\n"
        "        self.head = nn.Linear(6, 5, bias=False)\n"
        "        self.embed.weight = self.shared.weight\n\n"
        "    def forward(self, ids):\n"
        "        x = self.embed(ids).transpose(1, 2)\n"
        "        x = self.conv(x).transpose(1, 2)\n"
        "        assert x.shape[1] == out_length(self.conv, ids.shape[1])\n"
        "        return self.head(self.norm(x))\n\n\n"
        "def init_weights(module):\n"
        "    if isinstance(module, (Tower, nn.Identity)):\n"
        "        nn.init.normal_(module.embed.weight, std=0.5)\n"
    ),
    "towers/sizes.py": (
        "def out_length(conv, length):\n"
        "    return (length + 2 * conv.padding[0] - conv.kernel_size[0]) // conv.stride[0] + 1\n\n\n"
        "def describe(embedding, conv, norm, head):\n"
        "    return (\n"
        "        embedding.num_embeddings,\n"
        "        embedding.embedding_dim,\n"
        "        tuple(embedding.weight.shape),\n"
        "        conv.stride[0],\n"
        "        conv.groups,\n"
        "        norm.eps,\n"
        "        tuple(norm.weight.shape),\n"
        "        head.in_features,\n"
        "        head.out_features,\n"
        "    )\n"
    ),
}


@pytest.fixture(scope="module")
def trees(tmp_path_factory):
    base = tmp_path_factory.mktemp("library_layers")
    for name, text in FILES.items():
        path = base / "src" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    out = base / "out" / "towers"
    run(plan([str(base / "src" / "towers")], str(out)), Options(), jobs=1)
    return base / "src", base / "out"


def test_layers_of_a_package_are_the_companion_classes(trees) -> None:
    _, out = trees
    model = (out / "towers" / "model.py").read_text(encoding="utf-8")
    for layer in ("Embedding(11, 4)", "Conv1d(4, 6, 3", "LayerNorm(6", "Linear(6, 5"):
        assert f"ms_aux.{layer}" in model, model
    # where the file shows the kind, TM306 writes MindSpore's name
    assert "self.embed.embedding_table = self.shared.embedding_table" in model
    # a receiver whose kind is only guessed keeps torch's name (a script's would be renamed, TM932)
    assert "module.embed.weight.set_data(" in model and "TM932" not in model
    # torch's attribute names are read as they are
    sizes = (out / "towers" / "sizes.py").read_text(encoding="utf-8")
    assert sizes == FILES["towers/sizes.py"]


def test_converting_the_package_again_changes_nothing(trees, tmp_path) -> None:
    _, out = trees
    again = tmp_path / "again" / "towers"
    run(plan([str(out / "towers")], str(again)), Options(), jobs=1)
    for name in ("model.py", "sizes.py"):
        assert (again / name).read_text(encoding="utf-8") == (
            out / "towers" / name
        ).read_text(encoding="utf-8")


def test_a_script_keeps_the_idiom_classes() -> None:
    out = convert_checked(
        "import torch.nn as nn\n\nemb = nn.Embedding(11, 4)\nfc = nn.Linear(4, 2)\n"
    ).code
    assert "nn.Embedding(11, 4, embedding_table=" in out
    assert "nn.Dense(4, 2)" in out and "ms_aux" not in out


def _import(folder):
    """The `towers.model` and `towers.sizes` modules of the package in ``folder``."""
    sys.path.insert(0, str(folder))
    try:
        for module in [m for m in sys.modules if m.split(".")[0] == "towers"]:
            del sys.modules[module]
        return [importlib.import_module(f"towers.{n}") for n in ("model", "sizes")]
    finally:
        sys.path.remove(str(folder))


@pytest.mark.real
def test_converted_package_gives_torchs_values(trees, fw) -> None:
    torch, ms = fw
    src, out = trees
    original, original_sizes = _import(src)
    torch.manual_seed(0)
    expected = original.Tower().eval()
    torch_parts = [expected.embed, expected.conv, expected.norm, expected.head]
    want = original_sizes.describe(*torch_parts)

    converted, converted_sizes = _import(out)
    model = converted.Tower()
    model.set_train(False)
    before = model.embed.embedding_table.asnumpy().std()
    converted.init_weights(model)
    assert abs(model.embed.embedding_table.asnumpy().std() - 0.5) < abs(before - 0.5)
    # torch's names reach the MindSpore parameters, the tie included (Conv1d's weight is
    # (out, in, 1, k) on MindSpore)
    for name, value in expected.named_parameters():
        owner, attribute = name.rsplit(".", 1)
        parameter = getattr(getattr(model, owner), attribute)
        parameter.set_data(ms.Tensor(value.detach().numpy().reshape(parameter.shape)))
    assert model.embed.embedding_table is model.shared.embedding_table
    parts = [model.embed, model.conv, model.norm, model.head]
    assert converted_sizes.describe(*parts) == want
    ids = np.array([[1, 4, 9, 2, 7, 3, 10], [0, 5, 5, 8, 6, 2, 1]], np.int64)
    with torch.no_grad():
        reference = expected(torch.tensor(ids)).numpy()
    np.testing.assert_allclose(
        model(ms.Tensor(ids)).asnumpy(), reference, rtol=1e-4, atol=1e-5
    )
