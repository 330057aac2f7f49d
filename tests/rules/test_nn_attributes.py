"""TM306: layer attributes take MindSpore's parameter names where the layer's kind is known."""

from __future__ import annotations

import pytest
from torch2ms.migrator.convert import convert_source
from torch2ms.rules.api import BY_TORCH_NAME
from torch2ms.rules.nn.layers import PARAM_NAMES, param_names


def convert(source: str) -> str:
    result = convert_source(source, "case.py")
    assert convert_source(result.code, "case.py").code == result.code
    return result.code


NET = (
    "import torch.nn as nn\n\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    "        self.ln = nn.LayerNorm(4)\n        self.fc = nn.Linear(4, 2)\n        self.emb = nn.Embedding(5, 4)\n"
    "        self.bn = nn.BatchNorm1d(4)\n        self.norms = nn.ModuleList([nn.LayerNorm(4) for _ in range(2)])\n\n"
    "class Wrapper(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.net = Net()\n\n"
)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("model.net.ln.weight", "model.net.ln.gamma"),
        ("model.net.ln.bias", "model.net.ln.beta"),
        ("model.net.fc.weight", "model.net.fc.weight"),
        ("model.net.emb.weight.shape", "model.net.emb.embedding_table.shape"),
        ("model.net.bn.running_mean", "model.net.bn.moving_mean"),
        ("model.net.bn.running_var", "model.net.bn.moving_variance"),
        ("model.net.bn.weight", "model.net.bn.gamma"),
        ("model.net.norms[1].weight", "model.net.norms[1].gamma"),
    ],
)
def test_instance_chains(expression: str, expected: str) -> None:
    code = convert(NET + f"model = Wrapper()\nprint({expression})\n")
    assert f"print({expected})" in code


def test_self_attributes_and_inheritance() -> None:
    code = convert(
        "import torch.nn as nn\n\nclass Base(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.bn = nn.BatchNorm1d(3)\n\nclass Child(Base):\n    def stats(self):\n"
        "        return self.bn.running_var, self.bn.bias\n"
    )
    assert "return self.bn.moving_variance, self.bn.beta" in code


def test_module_level_layer() -> None:
    code = convert(
        "import torch.nn as nn\n\nbn = nn.BatchNorm2d(3)\nprint(bn.running_mean, bn.weight)\n"
    )
    assert "print(bn.moving_mean, bn.gamma)" in code


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(
            "import torch.nn as nn\n\nclass Block(nn.Module):\n    def __init__(self, norm_layer=None):\n        super().__init__()\n"
            "        self.norm = norm_layer(4)\n\n    def forward(self, x):\n        return x * self.norm.weight\n",
            id="factory-made-layer",
        ),
        pytest.param(
            "import torch.nn as nn\n\nclass Block(nn.Module):\n    def __init__(self, flag):\n        super().__init__()\n"
            "        if flag:\n            self.norm = nn.LayerNorm(4)\n        else:\n            self.norm = nn.Linear(4, 4)\n\n"
            "    def forward(self, x):\n        return x * self.norm.weight\n",
            id="two-kinds",
        ),
        pytest.param(
            "import torch.nn as nn\n\nbn = nn.BatchNorm1d(3)\nbn = make()\nprint(bn.weight)\n",
            id="rebound-name",
        ),
        pytest.param(
            "import torch.nn as nn\n\nclass Plain:\n    def __init__(self):\n        self.bn = nn.BatchNorm1d(3)\n\n    def w(self):\n        return self.bn.weight\n",
            id="not-a-module-class",
        ),
    ],
)
def test_unknown_kinds_keep_names(source: str) -> None:
    assert ".weight" in convert(source)


def test_batch_counter_reported() -> None:
    result = convert_source(
        "import torch.nn as nn\n\nbn = nn.BatchNorm1d(3)\nprint(bn.num_batches_tracked)\n",
        "case.py",
    )
    assert "TM930" in {f.rule for f in result.findings}


@pytest.mark.parametrize("layer", sorted(PARAM_NAMES))
def test_fallback_names_agree_with_api_table(layer: str) -> None:
    mapping = BY_TORCH_NAME.get(layer)
    if mapping is not None and mapping.param_names:
        assert {k: v for k, v in mapping.param_names.items() if v} == PARAM_NAMES[
            layer
        ] or layer.startswith("torch.nn.InstanceNorm")
    assert param_names(layer)


def test_sequential_elements_by_literal_index() -> None:
    code = convert(
        "import torch.nn as nn\n\nmodel = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3), nn.LayerNorm(3))\n"
        "print(model[1].running_mean, model[-1].weight, model[0].weight)\n"
    )
    assert "print(model[1].moving_mean, model[-1].gamma, model[0].weight)" in code


def test_receiver_guessed_from_name_is_reported() -> None:
    result = convert_source(
        NET + "def show(model):\n    return model.net.emb.weight\n", "case.py"
    )
    assert "return model.net.emb.embedding_table" in result.code
    assert "TM932" in {f.rule for f in result.findings}


def test_unguessable_receiver_keeps_names() -> None:
    assert "return thing.net.emb.weight" in convert(
        NET + "def show(thing):\n    return thing.net.emb.weight\n"
    )
