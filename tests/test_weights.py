"""`torch2ms weights`: a torch state_dict converted, loaded into the MindSpore model, same outputs."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import require_module
from torch2ms.cli.main import main
from torch2ms.migrator.weights import (
    convert_state,
    encode_checkpoint,
    kinds_from_source,
)

TORCH_MODEL = """
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 6)
        self.norm = nn.LayerNorm(6)
        self.conv = nn.Conv2d(1, 3, 3, padding=1)
        self.bn = nn.BatchNorm2d(3)
        self.proj = nn.Linear(6, 4, bias=False)
        self.head = nn.Linear(3 * 6 * 6, 5)

    def forward(self, ids):
        h = self.norm(self.emb(ids))            # (B, 6, 6)
        h = self.proj(h).sum() + self.bn(self.conv(h.unsqueeze(1))).flatten(1).relu()
        return self.head(h)
"""

MS_MODEL = """
from mindspore import nn, ops

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 6)
        self.norm = nn.LayerNorm((6,), epsilon=1e-5)
        self.conv = nn.Conv2d(1, 3, 3, pad_mode="pad", padding=1, has_bias=True)
        self.bn = nn.BatchNorm2d(3, momentum=0.9)
        self.proj = nn.Dense(6, 4, has_bias=False)
        self.head = nn.Dense(3 * 6 * 6, 5)

    def construct(self, ids):
        h = self.norm(self.emb(ids))
        h = self.proj(h).sum() + ops.relu(self.bn(self.conv(h.unsqueeze(1))).flatten(start_dim=1))
        return self.head(h)
"""


def _state(**shapes):
    rng = np.random.default_rng(0)
    return {k: rng.standard_normal(s).astype(np.float32) for k, s in shapes.items()}


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        (
            {
                "bn.weight": (3,),
                "bn.bias": (3,),
                "bn.running_mean": (3,),
                "bn.running_var": (3,),
            },
            ["bn.gamma", "bn.beta", "bn.moving_mean", "bn.moving_variance"],
        ),
        ({"ln.weight": (4,), "ln.bias": (4,)}, ["ln.gamma", "ln.beta"]),
        ({"fc.weight": (2, 4), "fc.bias": (2,)}, ["fc.weight", "fc.bias"]),
        ({"c.weight": (2, 3, 3, 3), "c.bias": (2,)}, ["c.weight", "c.bias"]),
        (
            {"layers.0.weight": (2, 4), "weight": (3,), "bias": (3,)},
            ["layers.0.weight", "gamma", "beta"],
        ),
    ],
)
def test_names_from_shapes(state, expected) -> None:
    assert [e.name for e in convert_state(_state(**state)).entries] == expected


def test_counter_dropped_and_ambiguous_listed() -> None:
    state = _state(
        **{
            "bn.weight": (3,),
            "bn.bias": (3,),
            "bn.running_mean": (3,),
            "bn.running_var": (3,),
            "emb.weight": (5, 3),
        }
    )
    state["bn.num_batches_tracked"] = np.array(4, dtype=np.int64)
    conversion = convert_state(state)
    assert [name for name, _ in conversion.dropped] == ["bn.num_batches_tracked"]
    assert [name for name, _ in conversion.assumed] == ["emb.weight"]
    assert "emb.weight" in [e.name for e in conversion.entries]


def test_names_from_source() -> None:
    kind_of = kinds_from_source(TORCH_MODEL)
    state = _state(
        **{
            "emb.weight": (10, 6),
            "proj.weight": (4, 6),
            "norm.weight": (6,),
            "norm.bias": (6,),
        }
    )
    names = [e.name for e in convert_state(state, kind_of).entries]
    assert names == ["emb.embedding_table", "proj.weight", "norm.gamma", "norm.beta"]


def test_source_layers_in_containers() -> None:
    source = (
        "import torch.nn as nn\n\nclass Block(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.norm = nn.LayerNorm(4, bias=False)\n\nclass Net(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.blocks = nn.ModuleList([Block() for _ in range(2)])\n"
        "        self.tok = nn.Embedding(3, 4)\n"
    )
    state = _state(
        **{
            "blocks.0.norm.weight": (4,),
            "blocks.1.norm.weight": (4,),
            "tok.weight": (3, 4),
        }
    )
    conversion = convert_state(state, kinds_from_source(source, "Net"))
    assert [e.name for e in conversion.entries] == [
        "blocks.0.norm.gamma",
        "blocks.1.norm.gamma",
        "tok.embedding_table",
    ]
    assert conversion.assumed == []


def test_conv1d_weight_gains_an_axis() -> None:
    conversion = convert_state(_state(**{"c.weight": (4, 2, 3), "c.bias": (4,)}))
    assert conversion.entries[0].array.shape == (4, 2, 1, 3)


@pytest.mark.real
def test_encoder_writes_what_mindspore_writes(tmp_path) -> None:
    mindspore = require_module("mindspore")
    entries = [
        ("a.weight", np.arange(6, dtype=np.float32).reshape(2, 3)),
        ("a.bias", np.array([1.5, -2.0], dtype=np.float64)),
        ("ids", np.arange(300, dtype=np.int64).reshape(3, 100)),
        ("flag", np.array([True, False])),
        ("half", np.ones((2, 2), dtype=np.float16)),
        ("i32", np.array([7], dtype=np.int32)),
    ]
    path = tmp_path / "ms.ckpt"
    mindspore.save_checkpoint(
        [{"name": n, "data": mindspore.Tensor(a)} for n, a in entries], str(path)
    )
    assert encode_checkpoint(entries) == path.read_bytes()
    mine = tmp_path / "mine.ckpt"
    mine.write_bytes(encode_checkpoint(entries))
    loaded = mindspore.load_checkpoint(str(mine))
    for name, array in entries:
        np.testing.assert_array_equal(loaded[name].asnumpy(), array)


@pytest.mark.real
@pytest.mark.parametrize("with_source", [True, False])
def test_converted_checkpoint_gives_same_outputs(tmp_path, with_source) -> None:
    torch = require_module("torch")
    mindspore = require_module("mindspore")
    torch.manual_seed(0)
    scope: dict = {}
    exec(compile(TORCH_MODEL, "torch_model.py", "exec"), scope)  # noqa: S102 (snippets and their conversions are the test data)
    net = scope["Net"]()
    net.train()
    ids = torch.tensor(np.random.default_rng(1).integers(0, 10, (2, 6)))
    net(ids)  # moves the BatchNorm statistics away from their initial values
    net.eval()
    expected = net(ids).detach().numpy()
    source = tmp_path / "net.pth"
    torch.save(net.state_dict(), source)
    (tmp_path / "model.py").write_text(TORCH_MODEL)
    target = tmp_path / "net.ckpt"
    args = ["weights", str(source), str(target), "--format", "json"]
    if with_source:
        args += ["--model-source", str(tmp_path / "model.py")]
    result = CliRunner().invoke(main, args)
    # Without the source the Embedding's 2-D weight is a guess: written, listed, exit 1.
    assert result.exit_code == (0 if with_source else 1), result.output
    if not with_source:
        assert "2 key(s) named by a guess" in result.output
        assert "  emb.weight: a 2-D weight without bias" in result.output
    ms_scope: dict = {}
    exec(compile(MS_MODEL, "ms_model.py", "exec"), ms_scope)  # noqa: S102 (snippets and their conversions are the test data)
    ms_net = ms_scope["Net"]()
    not_loaded, unused = mindspore.load_param_into_net(
        ms_net, mindspore.load_checkpoint(str(target))
    )
    if with_source:
        assert not_loaded == [] and unused == []
    else:
        # Without the source the Embedding's 2-D weight is indistinguishable from a Linear's.
        assert not_loaded == ["emb.embedding_table"] and unused == ["emb.weight"]
        return
    ms_net.set_train(False)
    got = ms_net(mindspore.Tensor(ids.numpy())).asnumpy()
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


def test_missing_torch_is_a_clear_error(tmp_path, monkeypatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_torch(name, *args, **kwargs):
        if name == "torch" or name.startswith("torch."):
            raise ImportError("no torch")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_torch)
    source = tmp_path / "x.pth"
    source.write_bytes(b"")
    result = CliRunner().invoke(
        main, ["weights", str(source), str(tmp_path / "x.ckpt")]
    )
    assert result.exit_code == 2
    assert "needs PyTorch" in result.output


@pytest.mark.real
def test_target_named_as_mindspore_names_it(tmp_path) -> None:
    torch = require_module("torch")
    mindspore = require_module("mindspore")
    source = tmp_path / "model.pth"
    torch.save(
        {
            "bn.weight": torch.ones(2),
            "bn.bias": torch.zeros(2),
            "bn.running_mean": torch.zeros(2),
            "bn.running_var": torch.ones(2),
        },
        source,
    )
    result = CliRunner().invoke(
        main, ["weights", str(source), str(tmp_path / "model.pth")]
    )
    assert result.exit_code == 0, result.output
    assert "model.pth.ckpt: 4 tensors, 4 renamed" in result.output
    assert "bn.running_var -> bn.moving_variance" in result.output
    assert sorted(mindspore.load_checkpoint(str(tmp_path / "model.pth.ckpt"))) == [
        "bn.beta",
        "bn.gamma",
        "bn.moving_mean",
        "bn.moving_variance",
    ]


@pytest.mark.real
def test_not_a_state_dict_is_a_clear_error(tmp_path) -> None:
    torch = require_module("torch")
    source = tmp_path / "bundle.pth"
    torch.save({"epoch": 3, "lr": 0.1}, source)
    result = CliRunner().invoke(
        main, ["weights", str(source), str(tmp_path / "out.ckpt")]
    )
    assert result.exit_code == 2
    assert "not a state_dict" in result.output


@pytest.mark.real
def test_checkpoint_bundle_is_unwrapped(tmp_path) -> None:
    torch = require_module("torch")
    source = tmp_path / "bundle.pth"
    torch.save(
        {
            "model": {"fc.weight": torch.ones(3, 2), "fc.bias": torch.ones(3)},
            "epoch": 3,
        },
        source,
    )
    result = CliRunner().invoke(
        main, ["weights", str(source), str(tmp_path / "out.ckpt"), "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    assert '"tensors": 2' in result.output


@pytest.mark.real
def test_converted_loader_reads_the_converted_weights(tmp_path, monkeypatch) -> None:
    """torch trains and saves; `torch2ms weights` converts; the *converted* script loads and agrees."""
    torch = require_module("torch")
    require_module("mindspore")
    from torch2ms.migrator.convert import convert_source

    loader = TORCH_MODEL + (
        "\n\ndef evaluate(path, ids):\n    model = Net()\n    model.load_state_dict(torch.load(path))\n"
        "    model.eval()\n    return model(ids)\n"
    )
    scope: dict = {}
    exec(compile(loader, "loader.py", "exec"), scope)  # noqa: S102 (the script under test)
    torch.manual_seed(0)
    net = scope["Net"]()
    ids_array = np.random.default_rng(1).integers(0, 10, (2, 6))
    net(torch.tensor(ids_array))  # train-mode step: BatchNorm statistics move
    path = tmp_path / "net.pth"
    torch.save(net.state_dict(), path)
    expected = scope["evaluate"](str(path), torch.tensor(ids_array)).detach().numpy()

    (tmp_path / "model.py").write_text(TORCH_MODEL)
    result = CliRunner().invoke(
        main,
        ["weights", str(path), str(path), "--model-source", str(tmp_path / "model.py")],
    )
    assert result.exit_code == 0, result.output
    converted = convert_source(loader, "loader.py")
    # The converted loader reads the file the program names: torch's own `net.pth`, through
    # the companion, which maps torch's names (the converted weights beside it agree).
    assert "ms_aux.load_state_dict(model, ms_aux.load(path))" in converted.code
    from torch2ms.rules.companion import assemble

    (tmp_path / "ms_aux.py").write_text(assemble(sorted(converted.companion)))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "ms_aux", raising=False)
    ms_scope: dict = {}
    exec(compile(converted.code, "loader_ms.py", "exec"), ms_scope)  # noqa: S102 (the conversion under test)
    import mindspore

    got = ms_scope["evaluate"](str(path), mindspore.Tensor(ids_array)).asnumpy()
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
    # Without torch's file, the converted weights `net.pth.ckpt` beside it are read.
    path.rename(tmp_path / "moved.pth")
    got = ms_scope["evaluate"](str(path), mindspore.Tensor(ids_array)).asnumpy()
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


def test_a_model_expression_needs_the_converted_tree(tmp_path) -> None:
    source = tmp_path / "x.pth"
    source.write_bytes(b"")
    result = CliRunner().invoke(
        main,
        ["weights", str(source), str(tmp_path / "x.ckpt"), "--model", "pkg:build()"],
    )
    assert result.exit_code == 2
    assert "needs --converted DIR" in result.output
