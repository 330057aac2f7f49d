"""Layers, functions and Module walks that conversions send to the companion because no
MindSpore form computes torch's values: alpha dropout, adaptive max pooling of any size, the
multi-label margin loss, recurrent cells called without a state, and torch's `buffers()` /
`named_parameters(...)` arguments."""

from __future__ import annotations

import pytest
from conftest import convert_checked

HEAD = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n\n"

CASES = [
    (
        "m = nn.AlphaDropout(p=0.4, inplace=True)\n",
        "m = ms_aux.AlphaDropout(p=0.4, inplace=True)\nm.set_train()\n",
        {"AlphaDropout"},
    ),
    (
        "y = F.alpha_dropout(x, 0.2, training=True)\n",
        "y = ms_aux.alpha_dropout(x, 0.2, training=True)\n",
        {"alpha_dropout"},
    ),
    (
        "y = F.feature_alpha_dropout(x)\n",
        "y = ms_aux.feature_alpha_dropout(x)\n",
        {"feature_alpha_dropout"},
    ),
    # MindSpore's adaptive max pooling needs sizes that divide evenly.
    (
        "y = F.adaptive_max_pool1d(x, 5, False)\n",
        "y = ms_aux.adaptive_max_pool1d(x, 5, False)\n",
        {"adaptive_max_pool1d"},
    ),
    (
        "m = nn.AdaptiveMaxPool3d(1, return_indices=True)\n",
        "m = ms_aux.AdaptiveMaxPool3d(1, return_indices=True)\n",
        {"AdaptiveMaxPool3d"},
    ),
    (
        "loss = nn.modules.loss.MultiLabelMarginLoss(reduction='sum')\n",
        "loss = ms_aux.MultiLabelMarginLoss(reduction='sum')\n",
        {"MultiLabelMarginLoss"},
    ),
    (
        "loss = nn.modules.loss.TripletMarginWithDistanceLoss(margin=2.0)\n",
        "loss = ms_aux.TripletMarginWithDistanceLoss(margin=2.0)\n",
        {"TripletMarginWithDistanceLoss"},
    ),
    # A lazy layer is built at its first call; an instance norm starts in training mode.
    (
        "m = nn.LazyInstanceNorm2d(affine=False)\n",
        "m = ms_aux.LazyInstanceNorm2d(affine=False)\nm.set_train()\n",
        {"LazyInstanceNorm2d"},
    ),
    ("m = nn.LazyLinear(4)\n", "m = ms_aux.LazyLinear(4)\n", {"LazyLinear"}),
    # torch's backend selection around the companion's attention.
    (
        (
            "with torch.nn.attention.sdpa_kernel([torch.nn.attention.SDPBackend.MATH]):\n"
            "    y = torch.nn.attention._cur_sdpa_kernel_backends()\n"
        ),
        (
            "with ms_aux.sdpa_kernel([ms_aux.SDPBackend.MATH]):\n"
            "    y = ms_aux._cur_sdpa_kernel_backends()\n"
        ),
        {"sdpa_kernel", "SDPBackend", "_cur_sdpa_kernel_backends"},
    ),
    (
        "from torch.nn.attention.flex_attention import and_masks\nmask = and_masks(f, g)\n",
        "mask = ms_aux.and_masks(f, g)\n",
        {"and_masks"},
    ),
    # MindSpore's Conv1dTranspose has no output_padding; torch's padding_mode.
    (
        "m = nn.ConvTranspose1d(8, 12, 3, stride=2, output_padding=1)\n",
        "m = ms_aux.ConvTranspose1d(8, 12, 3, stride=2, output_padding=1)\n",
        {"ConvTranspose1d"},
    ),
    (
        "m = nn.ConvTranspose2d(4, 5, 3, padding_mode='zeros')\n",
        "m = ms_aux.ConvTranspose2d(4, 5, 3, padding_mode='zeros')\n",
        {"ConvTranspose2d"},
    ),
    ("m = nn.CircularPad2d(1)\n", "m = ms_aux.CircularPad2d(1)\n", {"CircularPad2d"}),
    (
        "m = nn.ReflectionPad3d(1)\n",
        "m = ms_aux.ReflectionPad3d(1)\n",
        {"ReflectionPad3d"},
    ),
    (
        "y = F.upsample_nearest(x, scale_factor=2)\n",
        "y = ms_aux.upsample_nearest(x, scale_factor=2)\n",
        {"upsample_nearest"},
    ),
    (
        "y = F.channel_shuffle(x, 2)\n",
        "y = ms_aux.channel_shuffle(x, 2)\n",
        {"channel_shuffle"},
    ),
    (
        "y = F.fractional_max_pool2d(x, 2, output_size=3, _random_samples=s)\n",
        "y = ms_aux.fractional_max_pool2d(x, 2, output_size=3, _random_samples=s)\n",
        {"fractional_max_pool2d"},
    ),
    # torch's legacy axis without dim, which MindSpore's Softmax does not choose.
    ("m = nn.Softmax(dim=None)\n", "m = ms_aux.Softmax(dim=None)\n", {"Softmax"}),
    ("m = nn.Softmin()\n", "m = ms_aux.Softmin()\n", {"Softmin"}),
    ("m = nn.Softshrink(0.3)\n", "m = ms_aux.Softshrink(0.3)\n", {"Softshrink"}),
    # MindSpore's kernel refuses beta=0.
    (
        "loss = nn.SmoothL1Loss(beta=0.0)\n",
        "loss = ms_aux.SmoothL1Loss(beta=0.0)\n",
        {"SmoothL1Loss"},
    ),
    (
        "y = F.dropout3d(x, 0.5, True, inplace=True)\n",
        "y = ms_aux.dropout3d(x, 0.5, True, inplace=True)\n",
        {"dropout3d"},
    ),
    # torch.nn.modules re-exports every layer class.
    ("c = nn.modules.RNNCell(3, 4)\n", "c = ms_aux.RNNCell(3, 4)\n", {"RNNCell"}),
    (
        "asm = nn.AdaptiveLogSoftmaxWithLoss(5, 8, [2, 4], div_value=2.0)\n",
        "asm = ms_aux.AdaptiveLogSoftmaxWithLoss(5, 8, [2, 4], div_value=2.0)\n",
        {"AdaptiveLogSoftmaxWithLoss"},
    ),
    (
        "m = nn.Bilinear(10, 20, 30, dtype=torch.float32)\n",
        "m = ms_aux.Bilinear(10, 20, 30, dtype=mindspore.float32)\n",
        {"Bilinear"},
    ),
    ("y = F.one_hot(x)\n", "y = ms_aux.one_hot(x)\n", {"one_hot"}),
    (
        "y = F.huber_loss(a, b, 'none', 2.0)\n",
        "y = ms_aux.huber_loss(a, b, 'none', 2.0)\n",
        {"huber_loss"},
    ),
    ("loss = nn.MSELoss(*args)\n", "loss = ms_aux.MSELoss(*args)\n", {"MSELoss"}),
    (
        "bn = nn.modules.batchnorm._BatchNorm(3)\n",
        "bn = ms_aux.BatchNormBase(3)\n",
        {"BatchNormBase"},
    ),
    (
        "loss = nn.MultiMarginLoss(*args, reduction='sum')\n",
        "loss = ms_aux.MultiMarginLoss(*args, reduction='sum')\n",
        {"MultiMarginLoss"},
    ),
    # The call may leave out the state, which torch's cells default to zeros.
    ("c = nn.RNNCell(3, 4)\n", "c = ms_aux.RNNCell(3, 4)\n", {"RNNCell"}),
    (
        "c = nn.LSTMCell(3, 4, bias=False)\n",
        "c = ms_aux.LSTMCell(3, 4, bias=False)\n",
        {"LSTMCell"},
    ),
]


@pytest.mark.parametrize(("before", "after", "used"), CASES)
def test_companion_entries(before: str, after: str, used: set[str]) -> None:
    result = convert_checked(HEAD + before)
    assert result.code.endswith("\n" + after)
    assert "torch" not in result.code
    assert result.companion == used
    assert not result.findings, result.findings


NET = (
    "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    "        self.fc = nn.Linear(2, 2)\n        self.register_buffer('mean', torch.zeros(2))\n\n\n"
    "net = Net()\n"
)


@pytest.mark.parametrize(
    ("call", "converted", "used"),
    [
        ("net.buffers()", "ms_aux.module_buffers(net)", {"module_buffers"}),
        (
            "net.named_buffers(prefix='m', recurse=False)",
            "ms_aux.named_buffers(net, prefix='m', recurse=False)",
            {"named_buffers"},
        ),
        (
            "net.named_parameters(remove_duplicate=False)",
            "ms_aux.named_parameters(net, remove_duplicate=False)",
            {"named_parameters"},
        ),
        (
            "net.named_parameters('p', True, True)",
            "ms_aux.named_parameters(net, 'p', True, True)",
            {"named_parameters"},
        ),
        ("net.double()", 'ms_aux.module_cast(net, "double")', {"module_cast"}),
        (
            "net.add_module(name='extra', module=nn.ReLU())",
            "ms_aux.add_module(net, name='extra', module=nn.ReLU())",
            {"add_module"},
        ),
        # Two arguments or fewer keep MindSpore's own walk.
        (
            "net.named_parameters(prefix='p')",
            "net.parameters_and_names(name_prefix='p')",
            set(),
        ),
    ],
)
def test_module_walks(call: str, converted: str, used: set[str]) -> None:
    result = convert_checked(HEAD + NET + f"found = list({call})\n")
    assert f"found = list({converted})\n" in result.code
    assert result.companion == used
    assert "TM958" not in {f.rule for f in result.findings}


def test_a_receiver_rebound_by_its_loop_is_still_a_module() -> None:
    """`for a, b in a.named_parameters()` reads `a` before the loop rebinds it: only a Module has
    the method, so the call converts, with the warning that its receiver was guessed."""
    source = HEAD + NET + "a = net\nfor a, b in a.named_parameters():\n    print(b)\n"
    result = convert_checked(source)
    assert "for a, b in a.parameters_and_names():" in result.code
    assert {f.rule for f in result.findings} == {"TM932"}


def test_buffers_in_a_file_that_freezes_parameters_are_reported() -> None:
    source = (
        HEAD
        + NET
        + "net.fc.weight.requires_grad = False\nfound = list(net.buffers())\n"
    )
    result = convert_checked(source)
    assert "ms_aux.module_buffers(net)" in result.code
    assert "TM958" in {f.rule for f in result.findings}


def test_a_tensor_keeps_its_own_float() -> None:
    """`x.float()` on something not known to be a Module stays a tensor method."""
    result = convert_checked(HEAD + "def f(x):\n    return x.half()\n")
    assert "module_cast" not in result.code


def test_containers_take_their_contents_positionally() -> None:
    """CellDict reads a `modules=` keyword as an entry named "modules"."""
    result = convert_checked(
        HEAD + "d = nn.ModuleDict(modules={'relu': nn.ReLU()})\n"
        "l = nn.ModuleList(modules=[nn.ReLU()])\n"
    )
    assert "d = nn.CellDict({'relu': nn.ReLU()})\n" in result.code
    assert "l = nn.CellList([nn.ReLU()])\n" in result.code


def test_avg_pool2d_with_no_divisor_override() -> None:
    """MindSpore's divisor_override is an int; torch's None goes to the companion entry."""
    result = convert_checked(
        HEAD + "y = F.avg_pool2d(x, 2, divisor_override=None)\n"
        "z = F.avg_pool2d(x, 2, divisor_override=3)\n"
    )
    assert "y = ms_aux.avg_pool2d(x, 2, divisor_override=None)\n" in result.code
    assert "z = ops.avg_pool2d(x, 2, divisor_override=3, stride=2)\n" in result.code
