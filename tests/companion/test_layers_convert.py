"""Layer classes named without a call, subclassed, or called with arguments the idiom refuses:
the converter writes the companion class (`ms_aux.X`), and converting again changes nothing."""

from __future__ import annotations

import pytest
from conftest import convert_checked
from torch2ms.rules.companion import assemble, closure
from torch2ms.rules.companion.table_layers import ENTRIES

HEAD = "import torch\nimport torch.nn as nn\n\n\n"

REWRITES = [
    # Passed as a value to code the converter cannot see.
    (
        HEAD + "block = make_block(64, act_layer=nn.GELU)\n",
        "import ms_aux\n\n\nblock = make_block(64, act_layer=ms_aux.GELU)\n",
        {"GELU"},
    ),
    # A parameter default that is called with torch's arguments.
    (
        HEAD + "def block(act_layer=nn.ReLU):\n    return act_layer(inplace=True)\n",
        "import ms_aux\n\n\ndef block(act_layer=ms_aux.ReLU):\n    return act_layer(inplace=True)\n",
        {"ReLU"},
    ),
    # Bound to a name.
    (
        HEAD + "def build(c, norm_layer=None):\n"
        "    norm_layer = norm_layer or nn.BatchNorm2d\n"
        "    return norm_layer(c, eps=1e-3, momentum=0.01)\n",
        (
            "import ms_aux\n\n\ndef build(c, norm_layer=None):\n"
            "    norm_layer = norm_layer or ms_aux.BatchNorm2d\n"
            "    return norm_layer(c, eps=1e-3, momentum=0.01)\n"
        ),
        {"BatchNorm2d"},
    ),
    # Inside functools.partial.
    (
        (
            "from functools import partial\n\nimport torch.nn as nn\n\n"
            "norm_layer = partial(nn.LayerNorm, eps=1e-6)\n"
        ),
        (
            "from functools import partial\n\nimport ms_aux\n\n"
            "norm_layer = partial(ms_aux.LayerNorm, eps=1e-6)\n"
        ),
        {"LayerNorm"},
    ),
    # A base class: the subclass keeps torch's constructor and attribute names.
    (
        HEAD + "class BatchNormAct2d(nn.BatchNorm2d):\n"
        "    def forward(self, x):\n        return super().forward(x) * self.weight.mean()\n",
        (
            "import ms_aux\n\n\nclass BatchNormAct2d(ms_aux.BatchNorm2d):\n"
            "    def construct(self, x):\n        return super().construct(x) * self.weight.mean()\n"
        ),
        {"BatchNorm2d"},
    ),
    (
        "import torch\n\n\nclass PReLU(torch.nn.PReLU):\n    pass\n",
        "import ms_aux\n\n\nclass PReLU(ms_aux.PReLU):\n    pass\n",
        {"PReLU"},
    ),
    # The module torch defines the class in.
    (
        "import torch\n\nlayer = torch.nn.modules.batchnorm.SyncBatchNorm\n",
        "import ms_aux\n\nlayer = ms_aux.SyncBatchNorm\n",
        {"SyncBatchNorm"},
    ),
    # Calls whose arguments the idiom mapping refuses take the companion class, as they are.
    (
        HEAD + "def build(c, **kwargs):\n    return nn.BatchNorm2d(c, **kwargs)\n",
        "import ms_aux\n\n\ndef build(c, **kwargs):\n    return ms_aux.BatchNorm2d(c, **kwargs)\n",
        {"BatchNorm2d"},
    ),
    (
        HEAD + "m = nn.Conv2d(3, 8, 4, padding='same', padding_mode='reflect')\n",
        "import ms_aux\n\n\nm = ms_aux.Conv2d(3, 8, 4, padding='same', padding_mode='reflect')\n",
        {"Conv2d"},
    ),
    (
        HEAD + "m = nn.LayerNorm((4, 8), elementwise_affine=False)\n",
        "import ms_aux\n\n\nm = ms_aux.LayerNorm((4, 8), elementwise_affine=False)\n",
        {"LayerNorm"},
    ),
    (
        HEAD + "m = nn.Linear(*shape)\n",
        "import ms_aux\n\n\nm = ms_aux.Linear(*shape)\n",
        {"Linear"},
    ),
]


@pytest.mark.parametrize(("before", "after", "used"), REWRITES)
def test_companion_layer_classes(before: str, after: str, used: set[str]) -> None:
    result = convert_checked(before)
    assert result.code == after
    assert result.companion == used
    assert not [f for f in result.findings if f.severity == "error"], result.findings


KEPT = [
    # Type checks and annotations keep the idiom class, which the companion class derives from.
    (
        HEAD + "norm = nn.BatchNorm2d\nok = isinstance(m, nn.BatchNorm2d)\n",
        (
            "from mindspore import nn\nimport ms_aux\n\n\n"
            "norm = ms_aux.BatchNorm2d\nok = isinstance(m, nn.BatchNorm2d)\n"
        ),
    ),
    (
        HEAD + "def f(m: nn.LayerNorm) -> nn.Linear:\n    return m\n",
        "from mindspore import nn\n\n\ndef f(m: nn.LayerNorm) -> nn.Dense:\n    return m\n",
    ),
    # Calls the idiom maps with certainty keep it.
    (
        HEAD + "m = nn.BatchNorm2d(8, eps=1e-3, momentum=0.2)\n",
        "from mindspore import nn\n\n\nm = nn.BatchNorm2d(8, eps=1e-3, momentum=0.8)\nm.set_train()\n",
    ),
    # A plain drop-in stays the idiom class even as a value.
    (HEAD + "gate = nn.Sigmoid\n", "from mindspore import nn\n\n\ngate = nn.Sigmoid\n"),
]


@pytest.mark.parametrize(("before", "after"), KEPT)
def test_idiom_kept(before: str, after: str) -> None:
    assert convert_checked(before).code == after


def test_ascend_keeps_mint_class_values() -> None:
    """With the mint target, a torch-aligned `mint.nn` class wins over the companion class."""
    result = convert_checked(
        HEAD + "def block(act_layer=nn.GELU, norm=nn.BatchNorm2d):\n"
        "    return act_layer(approximate='tanh'), norm(8, momentum=0.01)\n",
        target="ascend",
    )
    assert "act_layer=mint.nn.GELU" in result.code
    assert "norm=ms_aux.BatchNorm2d" in result.code
    assert result.companion == {"BatchNorm2d"}


def test_assembled_module_holds_what_the_classes_need() -> None:
    text = assemble(["BatchNorm2d", "Conv2d"])
    compile(text, "ms_aux.py", "exec")
    assert closure(["BatchNorm2d"]) == [
        "_constant",
        "_TorchNames",
        "_TorchBatchNorm",
        "BatchNorm2d",
    ]
    assert "class Conv2d(_TorchConv, nn.Conv2d)" in text and "def _conv_padding" in text
    assert "class LayerNorm" not in text
    for name in set(ENTRIES.values()):
        compile(assemble([name]), "ms_aux.py", "exec")
