"""Attention and Transformer layers in conversions: the companion entry (`ms_aux.X`) for torch's
MultiheadAttention, Transformer layers and stacks, and `_get_activation_fn`; an in-place
functional activation whose input was computed just before and is rebound by the call, converted
to the idiom; every other in-place use kept with its finding; converting again changes nothing."""

from __future__ import annotations

import pytest
from conftest import convert_checked

HEAD = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n\n"

COMPANION = [
    (
        "m = nn.MultiheadAttention(8, 2, dropout=0.1, batch_first=True)\n",
        "m = ms_aux.MultiheadAttention(8, 2, dropout=0.1, batch_first=True)\nm.set_train()\n",
        {"MultiheadAttention"},
    ),
    (
        (
            "layer = nn.TransformerDecoderLayer(8, 2, norm_first=True)\n"
            "m = nn.TransformerDecoder(layer, num_layers=2)\n"
        ),
        (
            "layer = ms_aux.TransformerDecoderLayer(8, 2, norm_first=True)\nlayer.set_train()\n"
            "m = ms_aux.TransformerDecoder(layer, num_layers=2)\nm.set_train()\n"
        ),
        {"TransformerDecoder", "TransformerDecoderLayer"},
    ),
    (
        "m = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2), 3)\n",
        "m = ms_aux.TransformerEncoder(ms_aux.TransformerEncoderLayer(8, 2), 3)\nm.set_train()\n",
        {"TransformerEncoder", "TransformerEncoderLayer"},
    ),
    (
        (
            "from torch.nn.modules.transformer import _get_activation_fn\n\n"
            "act = _get_activation_fn('gelu')\n"
        ),
        "act = ms_aux._get_activation_fn('gelu')\n",
        {"_get_activation_fn"},
    ),
    (
        "def build(attention=nn.MultiheadAttention):\n    return attention(8, 2)\n",
        "def build(attention=ms_aux.MultiheadAttention):\n    return attention(8, 2)\n",
        {"MultiheadAttention"},
    ),
]


@pytest.mark.parametrize(("before", "after", "used"), COMPANION)
def test_companion_entries(before: str, after: str, used: set[str]) -> None:
    result = convert_checked(HEAD + before)
    assert result.code.endswith("import ms_aux\n\n\n" + after) or result.code.endswith(
        "import ms_aux\n\n" + after
    )
    assert "torch" not in result.code
    assert result.companion == used
    assert not result.findings, result.findings


MS_HEAD = "from mindspore import ops\n\n\n"

# `inplace` dropped: the input was computed just before and the call's result rebinds it.
INPLACE_DROPPED = [
    (
        "def f(a, b):\n    x = a + b\n    x = F.relu(x, inplace=True)\n    return x\n",
        "def f(a, b):\n    x = a + b\n    x = ops.relu(x)\n    return x\n",
    ),
    (
        (
            "def f(a, b):\n    x = torch.matmul(a, b)\n    y = a\n    x = F.leaky_relu(x, 0.2, True)\n"
            "    return x, y\n"
        ),
        (
            "def f(a, b):\n    x = ops.matmul(a, b)\n    y = a\n    x = ops.leaky_relu(x, alpha=0.2)\n"
            "    return x, y\n"
        ),
    ),
    (
        "def f(a, flag):\n    x = a * 2\n    x = F.relu6(x, inplace=flag).sum()\n    return x\n",
        "def f(a, flag):\n    x = a * 2\n    x = ops.relu6(x).sum()\n    return x\n",
    ),
]


@pytest.mark.parametrize(("before", "after"), INPLACE_DROPPED)
def test_inplace_dropped_where_nothing_else_reads_the_input(
    before: str, after: str
) -> None:
    result = convert_checked(HEAD + before)
    assert result.code == MS_HEAD + after
    assert not result.findings, result.findings


LAYER_CLASS = (
    "class Block(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    "        self.fc = {layer}\n\n"
    "    def forward(self, x):\n        h = self.fc(x)\n        h = F.relu(h, inplace=True)\n"
    "        return h\n"
)


def test_inplace_dropped_after_a_layer_that_returns_a_new_tensor() -> None:
    result = convert_checked(HEAD + LAYER_CLASS.format(layer="nn.Linear(4, 4)"))
    assert "h = ops.relu(h)" in result.code and "torch" not in result.code
    assert not result.findings, result.findings


INPLACE_WRITTEN = [
    # The caller's tensor is changed by torch.
    "def f(x):\n    x = F.relu(x, inplace=True)\n    return x\n",
    # The old tensor stays reachable under x.
    "def f(a, b):\n    x = a + b\n    y = F.relu(x, inplace=True)\n    return x, y\n",
    # Another name holds the same tensor.
    "def f(a, b):\n    x = a + b\n    z = x\n    x = F.relu(x, inplace=True)\n    return x, z\n",
    # A view of another tensor (MindSpore's view() shares its storage too).
    "def f(h):\n    x = h.view(-1)\n    x = F.relu(x, inplace=True)\n    return x, h\n",
    # The statement reads the updated tensor again.
    "def f(a, b):\n    x = a + b\n    x = F.relu(x, inplace=True) + x\n    return x\n",
    # Made in another block (a loop reads it on the next pass).
    (
        "def f(a, n):\n    x = a + 1\n    for _ in range(n):\n        x = F.relu(x, inplace=True)\n"
        "    return x\n"
    ),
    # An in-place activation returns its own input.
    "def f(a):\n    x = F.relu(a, inplace=True)\n    x = F.relu(x, inplace=True)\n    return x, a\n",
    # A layer that may return its input, and a Module attribute of unknown kind.
    LAYER_CLASS.format(layer="nn.Identity()"),
    LAYER_CLASS.format(layer="nn.Dropout(0.1)"),
    LAYER_CLASS.format(layer="make_layer()"),
]


@pytest.mark.parametrize("source", INPLACE_WRITTEN)
def test_inplace_written_into_the_input_elsewhere(source: str) -> None:
    # Where dropping `inplace` is not certain, the companion writes the result into the input.
    result = convert_checked(HEAD + source)
    assert "ms_aux.relu(" in result.code and "inplace=True" in result.code
    assert not [f for f in result.findings if f.rule == "TM941"], result.findings


@pytest.mark.parametrize(
    "source",
    [
        "def f(h):\n    x = h[:, 0]\n    x = F.relu(x, inplace=True)\n    return x, h\n",
        "def f(h):\n    return F.relu(h[0], inplace=True), h\n",
    ],
)
def test_inplace_on_a_slice_kept_with_its_finding(source: str) -> None:
    # torch also changes `h`; MindSpore's indexing copies, so no write would reach `h`.
    result = convert_checked(HEAD + source)
    assert "inplace=True" in result.code and "ms_aux.relu" not in result.code
    findings = [f for f in result.findings if f.rule == "TM941"]
    assert findings and "`inplace`" in findings[0].message, result.findings


# Shaped like timm's ML-Decoder head (a decoder layer built on MultiheadAttention, a
# TransformerDecoder stack, an in-place ReLU after a projection): our own code.
DECODER_HEAD = """from typing import Optional

import torch
from torch import nn, Tensor
from torch.nn.modules.transformer import _get_activation_fn


class CrossOnlyLayer(nn.Module):
    def __init__(self, width, heads=4, hidden=64, dropout=0.1, activation="relu"):
        super().__init__()
        self.attend = nn.MultiheadAttention(width, heads, dropout=dropout)
        self.expand = nn.Linear(width, hidden)
        self.shrink = nn.Linear(hidden, width)
        self.norm_a = nn.LayerNorm(width)
        self.norm_b = nn.LayerNorm(width)
        self.drop = nn.Dropout(dropout)
        self.activation = _get_activation_fn(activation)

    def forward(self, queries: Tensor, memory: Tensor, tgt_mask: Optional[Tensor] = None,
                memory_mask: Optional[Tensor] = None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        queries = self.norm_a(queries + self.attend(queries, memory, memory)[0])
        return self.norm_b(queries + self.drop(self.shrink(self.activation(self.expand(queries)))))


class QueryHead(nn.Module):
    def __init__(self, classes, features, width=32):
        super().__init__()
        self.project = nn.Linear(features, width)
        self.stack = nn.TransformerDecoder(CrossOnlyLayer(width), num_layers=2)
        self.queries = nn.Embedding(classes, width)
        self.out = nn.Linear(width, 1)

    def forward(self, x):
        tokens = self.project(x.flatten(2).transpose(1, 2))
        tokens = torch.nn.functional.relu(tokens, inplace=True)
        queries = self.queries.weight.unsqueeze(1).expand(-1, tokens.shape[0], -1)
        h = self.stack(queries, tokens.transpose(0, 1))
        return self.out(h.transpose(0, 1)).squeeze(-1)
"""


def test_decoder_head_converts_without_torch() -> None:
    result = convert_checked(DECODER_HEAD)
    code = result.code
    assert "import torch" not in code and "torch." not in code
    assert "import ms_aux" in code
    assert (
        "self.attend = ms_aux.MultiheadAttention(width, heads, dropout=dropout)" in code
    )
    assert "self.activation = ms_aux._get_activation_fn(activation)" in code
    assert (
        "self.stack = ms_aux.TransformerDecoder(CrossOnlyLayer(width), num_layers=2)"
        in code
    )
    assert "tokens = ops.relu(tokens)" in code
    assert result.companion == {
        "MultiheadAttention",
        "TransformerDecoder",
        "_get_activation_fn",
        "tensor_squeeze",
    }
    assert not [f for f in result.findings if f.severity == "error"], result.findings
