"""TM404: `nn.CrossEntropyLoss` that is only called becomes `ops.cross_entropy`; TM209: lr reads;
TM312: converted Embeddings keep torch's N(0, 1) table."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import convert_checked

HEAD = "import torch\nimport torch.nn as nn\n\n"


convert = convert_checked


def body(code: str) -> str:
    return code.split("\n\n", 1)[1] if "\n\n" in code else code


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(
            "criterion = nn.CrossEntropyLoss()\nloss = criterion(logits, labels)\n",
            "criterion = lambda input, target: ops.cross_entropy(input, target)\nloss = criterion(logits, labels)\n",
            id="default",
        ),
        pytest.param(
            "criterion = nn.CrossEntropyLoss(reduction='sum', ignore_index=0, label_smoothing=0.05)\n"
            "loss = criterion(input=logits, target=labels)\n",
            "criterion = lambda input, target: ops.cross_entropy(input, target, reduction='sum', ignore_index=0, "
            "label_smoothing=0.05)\nloss = criterion(input=logits, target=labels)\n",
            id="constants-and-keyword-call",
        ),
        pytest.param(
            "criterion = nn.CrossEntropyLoss(weight=labels)\nloss = criterion(logits, labels)\n",
            "criterion = lambda input, target, weight=labels: ops.cross_entropy(input, target, weight=weight)\n"
            "loss = criterion(logits, labels)\n",
            id="weight-evaluated-once",
        ),
        pytest.param(
            "loss = nn.CrossEntropyLoss(label_smoothing=0.1)(logits, labels)\n",
            "loss = ops.cross_entropy(logits, labels, label_smoothing=0.1)\n",
            id="built-and-called",
        ),
        pytest.param(
            "class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            "        self.loss_fn = nn.CrossEntropyLoss(reduction='sum')\n\n"
            "    def forward(self, x, y):\n        return self.loss_fn(x, y)\n",
            "class M(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
            "        self.loss_fn = lambda input, target: ops.cross_entropy(input, target, reduction='sum')\n\n"
            "    def construct(self, x, y):\n        return self.loss_fn(x, y)\n",
            id="module-attribute",
        ),
    ],
)
def test_cross_entropy_rewrite(before: str, after: str) -> None:
    result = convert(HEAD + before)
    assert body(result.code) == after
    assert "TM404" in result.rules_applied
    assert "torch" not in result.code


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(
            "criterion = nn.CrossEntropyLoss()\ntrain(model, criterion)\n",
            id="passed-on",
        ),
        pytest.param(
            "criterion = nn.CrossEntropyLoss()\nprint(criterion.reduction)\n",
            id="attribute-read",
        ),
        pytest.param("criterion = nn.CrossEntropyLoss()\n", id="never-called"),
        pytest.param(
            "criterion = nn.CrossEntropyLoss(size_average=False)\nl = criterion(a, b)\n",
            id="deprecated-args",
        ),
        pytest.param(
            "criterion = nn.CrossEntropyLoss(**kw)\nl = criterion(a, b)\n", id="spread"
        ),
        pytest.param(
            "class M(nn.Module):\n    def __init__(self, w):\n        super().__init__()\n"
            "        self.loss_fn = nn.CrossEntropyLoss(weight=w)\n\n"
            "    def forward(self, x, y):\n        return self.loss_fn(x, y)\n",
            id="weight-buffer-in-module-state",
        ),
    ],
)
def test_cross_entropy_left_to_the_table(source: str) -> None:
    result = convert(HEAD + source)
    assert "TM404" not in result.rules_applied
    assert "CrossEntropyLoss" in result.code


def test_cross_entropy_class_kept_where_it_runs() -> None:
    result = convert(
        HEAD + "criterion = nn.CrossEntropyLoss()\nloss = criterion(a, b)\n",
        target="gpu",
    )
    assert (
        body(result.code)
        == "criterion = nn.CrossEntropyLoss()\nloss = criterion(a, b)\n"
    )


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(
            "opt = torch.optim.Adam(p, lr=1)\nlr = opt.param_groups[0]['lr']\n"
            "print(f\"{opt.param_groups[0]['lr']:.4f}\")\n",
            "opt = optim.Adam(p, lr=1)\nlr = float(opt.param_groups[0]['lr'])\n"
            "print(f\"{float(opt.param_groups[0]['lr']):.4f}\")\n",
            id="reads",
        ),
        pytest.param(
            "opt = torch.optim.Adam(p, lr=1)\nopt.param_groups[0]['lr'] = 0.5\nopt.param_groups[0]['lr'] = new\n"
            "opt.param_groups[0]['lr'] *= 0.5\nx = float(opt.param_groups[0]['lr'])\n"
            "y = other.param_groups[0]['lr']\n",
            "opt = optim.Adam(p, lr=1)\nopt.param_groups[0]['lr'] = 0.5\nopt.param_groups[0]['lr'] = float(new)\n"
            "opt.param_groups[0]['lr'] = float(opt.param_groups[0]['lr']) * 0.5\n"
            "x = float(opt.param_groups[0]['lr'])\ny = float(other.param_groups[0]['lr'])\n",
            # a read from any object's groups is read as a float (a float stays one); a write
            # is rewritten only on an optimizer the file builds
            id="writes-become-floats-and-reads-of-any-optimizer",
        ),
        pytest.param(
            "opt = torch.optim.SGD(p, lr=1)\nfor g in opt.param_groups:\n    g['lr'] = g['lr'] * 0.1\n"
            "    print(g['lr'], g['momentum'])\nfor g in other.param_groups:\n    g['lr'] *= 0.5\n",
            "opt = optim.SGD(p, lr=1)\nfor g in opt.param_groups:\n    g['lr'] = float(g['lr']) * 0.1\n"
            "    print(float(g['lr']), g['momentum'])\nfor g in other.param_groups:\n    g['lr'] *= 0.5\n",
            id="loop-over-param-groups",
        ),
        pytest.param(
            "class T:\n    def __init__(self, params):\n        self.optimizer = torch.optim.SGD(params, lr=0.1)\n\n"
            "    def lr(self):\n        return self.optimizer.param_groups[0]['lr']\n",
            "class T:\n    def __init__(self, params):\n        self.optimizer = optim.SGD(params, lr=0.1)\n\n"
            "    def lr(self):\n        return float(self.optimizer.param_groups[0]['lr'])\n",
            id="attribute",
        ),
    ],
)
def test_learning_rate_reads(before: str, after: str) -> None:
    result = convert("import torch\n\n" + before)
    assert body(result.code) == after


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(
            "emb = nn.Embedding(10, 4)\n",
            "emb = nn.Embedding(10, 4, embedding_table=mindspore.common.initializer.Normal(1.0))\n",
            id="default-init",
        ),
        pytest.param(
            "emb = nn.Embedding(\n    num_embeddings=10,\n    embedding_dim=4,\n    padding_idx=0,\n)\n",
            "emb = nn.Embedding(\n    vocab_size=10,\n    embedding_size=4,\n    padding_idx=0,\n"
            "    embedding_table=mindspore.common.initializer.Normal(1.0),\n)\n",
            id="one-argument-per-line",
        ),
    ],
)
def test_embedding_init(before: str, after: str) -> None:
    assert body(convert(HEAD + before).code) == after


@pytest.mark.parametrize(
    "source",
    [
        "emb = nn.Embedding(10, 4, _weight=w)\n",
        "emb = nn.Embedding(10, 4, max_norm=1.0)\n",
    ],
)
def test_embedding_left_to_the_table(source: str) -> None:
    assert "TM312" not in convert(HEAD + source).rules_applied


def test_embedding_mint_keeps_torch_init() -> None:
    assert (
        body(convert(HEAD + "emb = nn.Embedding(10, 4)\n", target="ascend").code)
        == "emb = mint.nn.Embedding(10, 4)\n"
    )


@pytest.mark.real
def test_cross_entropy_conversion_matches_torch() -> None:
    torch = pytest.importorskip("torch")
    mindspore = pytest.importorskip("mindspore")
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((6, 4)).astype(np.float32)
    ignored = np.array([0, 3, 1, -100, 2, 1], dtype=np.int64)
    weight = np.array([0.5, 1.0, 2.0, 1.5], dtype=np.float32)
    for arguments, labels in (
        ("", ignored),
        ("reduction='sum'", ignored),
        ("reduction='none', label_smoothing=0.2", ignored),
        ("weight=torch.tensor(weight), label_smoothing=0.1", ignored),
        ("torch.tensor(weight), ignore_index=3", np.abs(ignored) % 4),
    ):
        source = (
            HEAD
            + f"criterion = nn.CrossEntropyLoss({arguments})\nloss = criterion(logits, labels)\n"
        )
        converted = convert(source).code
        assert "ops.cross_entropy" in converted, converted
        expected: dict = {
            "weight": weight,
            "logits": torch.tensor(logits),
            "labels": torch.tensor(labels),
        }
        exec(source, expected)  # noqa: S102 -- running the two scripts is the test
        actual: dict = {
            "weight": weight,
            "logits": mindspore.tensor(logits),
            "labels": mindspore.tensor(labels),
        }
        exec(converted, actual)  # noqa: S102
        np.testing.assert_allclose(
            actual["loss"].asnumpy(), expected["loss"].numpy(), rtol=1e-5, atol=1e-6
        )
