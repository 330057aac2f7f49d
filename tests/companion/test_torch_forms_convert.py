"""Forms torch accepts that MindSpore's idiom does not: the converter writes what runs as torch runs
(a companion entry or MindSpore's own name), and converting again changes nothing."""

from __future__ import annotations

import pytest
from conftest import convert_checked

HEAD = "import torch\nimport torch.nn as nn\n\n\n"

REWRITES = [
    # A Sequential subclass that assigns its layers as attributes runs them, as torch does.
    (
        HEAD + "class Stem(nn.Sequential):\n    def __init__(self, c):\n"
        "        super().__init__()\n        self.act = nn.ReLU()\n\n\n"
        "body = nn.Sequential(nn.ReLU())\nok = isinstance(body, nn.Sequential)\n",
        (
            "from mindspore import nn\nimport ms_aux\n\n\n"
            "class Stem(ms_aux.Sequential):\n    def __init__(self, c):\n"
            "        super().__init__()\n        self.act = nn.ReLU()\n\n\n"
            "body = nn.SequentialCell(nn.ReLU())\nok = isinstance(body, nn.SequentialCell)\n"
        ),
        {"Sequential"},
    ),
    # torch.meshgrid takes the tensors as one list too: a lone argument may be one.
    (
        HEAD + "def grid(t):\n    return torch.meshgrid(t, indexing='xy')\n",
        "import ms_aux\n\n\ndef grid(t):\n    return ms_aux.meshgrid(t, indexing='xy')\n",
        {"meshgrid"},
    ),
    # Tensors given one by one keep the idiom, with torch's default indexing written out.
    (
        HEAD + "def grid(a, b):\n    return torch.meshgrid(a, b)\n",
        (
            "from mindspore import ops\n\n\n"
            "def grid(a, b):\n    return ops.meshgrid(a, b, indexing='ij')\n"
        ),
        set(),
    ),
    # A MindSpore tensor's device is a string: its `.type` comes from the companion.
    (
        HEAD + "def cast(x):\n    return x.device.type != 'meta'\n",
        "import ms_aux\n\n\ndef cast(x):\n    return ms_aux.device_type(x.device) != 'meta'\n",
        {"device_type"},
    ),
    # A padding held in a name may be a per-dimension tuple; arithmetic on it is a number.
    (
        HEAD + "def conv(c, k, pad):\n"
        "    return nn.Conv2d(c, c, k, padding=pad), nn.Conv2d(c, c, k, padding=k // 2)\n",
        (
            "from mindspore import nn\nimport ms_aux\n\n\ndef conv(c, k, pad):\n"
            "    return ms_aux.Conv2d(c, c, k, padding=pad), "
            "nn.Conv2d(c, c, k, padding=k // 2, pad_mode='pad', has_bias=True)\n"
        ),
        {"Conv2d"},
    ),
    # Sizes held in a list, which MindSpore's layers refuse.
    (
        HEAD + "def pool(stride):\n    kernel = [s + 1 for s in stride]\n"
        "    return nn.MaxPool2d(kernel, stride), nn.AvgPool2d([3, 3], 1)\n",
        (
            "import ms_aux\n\n\ndef pool(stride):\n    kernel = [s + 1 for s in stride]\n"
            "    return ms_aux.MaxPool2d(kernel, stride), ms_aux.AvgPool2d([3, 3], 1)\n"
        ),
        {"MaxPool2d", "AvgPool2d"},
    ),
    # A forward chosen at run time is the construct MindSpore calls.
    (
        HEAD + "class Partial(nn.Module):\n    def __init__(self, fast):\n"
        "        super().__init__()\n"
        "        self.forward = self.forward_fast if fast else self.forward_slow\n\n"
        "    def forward_fast(self, x):\n        return x\n\n"
        "    def forward_slow(self, x):\n        return x * 1\n",
        (
            "from mindspore import nn\n\n\nclass Partial(nn.Cell):\n    def __init__(self, fast):\n"
            "        super().__init__()\n"
            "        self.construct = self.forward_fast if fast else self.forward_slow\n\n"
            "    def forward_fast(self, x):\n        return x\n\n"
            "    def forward_slow(self, x):\n        return x * 1\n"
        ),
        set(),
    ),
]


@pytest.mark.parametrize(("before", "after", "used"), REWRITES)
def test_torch_forms_take_what_runs(before: str, after: str, used: set[str]) -> None:
    result = convert_checked(before)
    assert result.code == after
    assert result.companion == used
    assert not [f for f in result.findings if f.severity == "error"], result.findings


KEPT = [
    # `forward` assigned outside a Module class, or on another object, is not a construct.
    HEAD + "class Hook:\n    def __init__(self, m):\n        self.forward = m\n",
    HEAD
    + "class Net(nn.Module):\n    def __init__(self, m):\n        super().__init__()\n"
    "        m.forward = self.wrap\n\n    def wrap(self, x):\n        return x\n",
    # `.type` of something that is not a device, and a device type that is assigned.
    HEAD + "def kind(x):\n    return x.dtype.type, x.type\n",
    # A list given to a class that is not a layer (an optimizer's parameter groups).
    HEAD + "def opt(a, b):\n"
    "    return torch.optim.SGD([{'params': a}, {'params': b}], lr=0.1)\n",
]


@pytest.mark.parametrize("source", KEPT)
def test_other_forms_are_kept(source: str) -> None:
    code = convert_checked(source).code
    assert "ms_aux" not in code
    assert "construct" not in code.replace("class Net(nn.Cell)", "")


def test_a_transposed_conv_with_a_padding_in_a_name_is_the_companion_class() -> None:
    """The idiom refuses a padding it cannot see; the companion class takes torch's."""
    result = convert_checked(
        HEAD + "def up(c, pad):\n    return nn.ConvTranspose2d(c, c, 3, padding=pad)\n"
    )
    assert "ms_aux.ConvTranspose2d(c, c, 3, padding=pad)" in result.code
    assert not result.findings, result.findings
