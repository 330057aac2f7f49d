"""Recurrent layers, unfolding and Conv3d in conversions: the MindSpore idiom where each argument
maps with certainty, the companion entry (`ms_aux.X`) where a class flows as a value, the idiom
refuses the call or none exists, and converting again changes nothing."""

from __future__ import annotations

import pytest
from conftest import convert_checked

HEAD = "import torch\nimport torch.nn as nn\n\n\n"
MS_HEAD = "from mindspore import nn\n\n\n"

IDIOM = [
    (
        "m = nn.LSTM(input_size=28, hidden_size=64, batch_first=True)\n",
        "m = nn.LSTM(input_size=28, hidden_size=64, batch_first=True)\n",
    ),
    # bias is has_bias; MindSpore checks that dropout is a float.
    (
        "m = nn.LSTM(3, 4, 2, bias=False, dropout=0, bidirectional=True)\n",
        "m = nn.LSTM(3, 4, 2, has_bias=False, dropout=0.0, bidirectional=True)\n",
    ),
    (
        "m = nn.GRU(3, 4, layers, True, True, p)\n",
        "m = nn.GRU(3, 4, layers, True, True, float(p))\n",
    ),
    # MindSpore's RNN reads nonlinearity by keyword only.
    (
        "m = nn.RNN(3, 4, 2, 'relu', False)\n",
        "m = nn.RNN(3, 4, 2, nonlinearity='relu', has_bias=False)\n",
    ),
    (
        "m = nn.Conv3d(2, 4, 3, padding=1)\n",
        "m = nn.Conv3d(2, 4, 3, padding=1, pad_mode='pad', has_bias=True)\n",
    ),
    # A torch attribute MindSpore names differently.
    (
        "m = nn.LSTM(3, 4)\nuses_bias = m.bias\n",
        "m = nn.LSTM(3, 4)\nuses_bias = m.has_bias\n",
    ),
]


@pytest.mark.parametrize(("before", "after"), IDIOM)
def test_idiom_where_every_argument_maps(before: str, after: str) -> None:
    result = convert_checked(HEAD + before)
    assert result.code == MS_HEAD + after
    assert not result.companion
    assert not result.findings, result.findings


COMPANION = [
    # Passed as values to code the converter cannot see.
    (
        "def build(rnn_layer=nn.LSTM, **kw):\n    return rnn_layer(3, 4, **kw)\n",
        "def build(rnn_layer=ms_aux.LSTM, **kw):\n    return rnn_layer(3, 4, **kw)\n",
        {"LSTM"},
    ),
    (
        "convs = [nn.Conv1d, nn.Conv2d, nn.Conv3d]\n",
        "convs = [ms_aux.Conv1d, ms_aux.Conv2d, ms_aux.Conv3d]\n",
        {"Conv1d", "Conv2d", "Conv3d"},
    ),
    # A call the idiom refuses keeps its own arguments.
    (
        "m = nn.LSTM(3, 4, **options)\n",
        "m = ms_aux.LSTM(3, 4, **options)\n",
        {"LSTM"},
    ),
    (
        "m = nn.LSTM(3, 4, proj_size=2)\n",
        "m = ms_aux.LSTM(3, 4, proj_size=2)\n",
        {"LSTM"},
    ),
    # torch's cells default the state to zeros where MindSpore's need it: the call that uses
    # the cell may be anywhere.
    (
        "m = nn.GRUCell(3, 4, bias=False)\n",
        "m = ms_aux.GRUCell(3, 4, bias=False)\n",
        {"GRUCell"},
    ),
    # No MindSpore class with torch's meaning and a CPU kernel.
    (
        "m = nn.Unfold(kernel_size=3, padding=1, stride=2)\n",
        "m = ms_aux.Unfold(kernel_size=3, padding=1, stride=2)\n",
        {"Unfold"},
    ),
    ("m = nn.Fold((8, 8), 3)\n", "m = ms_aux.Fold((8, 8), 3)\n", {"Fold"}),
    # A layer that depends on the mode starts in training mode, as torch's do.
    (
        "m = nn.Dropout2d(0.25)\n",
        "m = ms_aux.Dropout2d(0.25)\nm.set_train()\n",
        {"Dropout2d"},
    ),
    # torch's sliding windows (MindSpore's Tensor.unfold is im2col), chained as timm chains them.
    (
        "def windows(x, k, s):\n    return x.unfold(2, k, s).unfold(dimension=3, size=k, step=s)\n",
        (
            "def windows(x, k, s):\n    return ms_aux.tensor_unfold("
            "ms_aux.tensor_unfold(x, 2, k, s), dimension=3, size=k, step=s)\n"
        ),
        {"tensor_unfold"},
    ),
]


@pytest.mark.parametrize(("before", "after", "used"), COMPANION)
def test_companion_entries(before: str, after: str, used: set[str]) -> None:
    result = convert_checked(HEAD + before)
    assert result.code == "import ms_aux\n\n\n" + after
    assert result.companion == used
    assert not [f for f in result.findings if f.severity == "error"], result.findings


def test_a_layer_attribute_named_unfold_is_no_tensor_method() -> None:
    """`self.unfold(x)` calls a layer held in an attribute: neither rewritten nor reported."""
    source = (
        HEAD
        + "class Patches(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.unfold = nn.Unfold(2, stride=2)\n\n"
        "    def forward(self, x):\n        return self.unfold(x)\n"
    )
    result = convert_checked(source)
    assert "return self.unfold(x)" in result.code
    assert "self.unfold = ms_aux.Unfold(2, stride=2)" in result.code
    assert not result.findings, result.findings


def test_type_checks_keep_the_idiom_classes() -> None:
    result = convert_checked(HEAD + "ok = isinstance(m, (nn.RNN, nn.GRU, nn.LSTM))\n")
    assert result.code == MS_HEAD + "ok = isinstance(m, (nn.RNN, nn.GRU, nn.LSTM))\n"
