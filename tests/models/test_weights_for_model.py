"""`torch2ms weights --model --converted`: every tensor placed by the converted model's own names;
a state_dict that does not fit writes nothing and names each key; the converted model loads the
weights the same way whichever path they take."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import require_module
from model_support import SPEC, convert_package, torch_module, write_package
from torch2ms.cli.main import main

pytestmark = [pytest.mark.real, pytest.mark.slow]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    torch = require_module("torch")
    require_module("mindspore")
    root = str(tmp_path_factory.mktemp("weights"))
    original = write_package(root)
    converted = convert_package(original, root)
    module = torch_module(original)
    torch.manual_seed(0)
    net = module.build()
    ids = torch.tensor(np.random.default_rng(1).integers(0, 20, (2, 5)))
    net(ids)  # a train-mode step moves the BatchNorm statistics
    net.eval()
    with torch.no_grad():
        expected = net(ids).numpy()
    state = net.state_dict()
    torch.save(state, os.path.join(root, "net.pth"))
    torch.save({"model": state, "epoch": 3}, os.path.join(root, "bundle.pth"))
    return root, converted, state, ids.numpy(), expected


def _weights(source: str, target: str, converted: str, *extra: str):
    return CliRunner().invoke(
        main,
        ["weights", source, target, "--converted", converted, "--model", SPEC,
         "--mindspore-python", sys.executable, *extra],
    )  # fmt: skip


def test_every_tensor_placed_by_the_models_names(trained) -> None:
    root, converted, *_ = trained
    result = _weights(
        os.path.join(root, "net.pth"),
        os.path.join(root, "net.ckpt"),
        converted,
        "--format",
        "json",
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert (
        report["problems"] == [] and report["unloaded"] == [] and report["unused"] == []
    )
    assert report["placed"] == 13
    assert report["renamed"] == {
        "emb.weight": "emb.embedding_table",
        "bn.weight": "bn.gamma",
        "bn.bias": "bn.beta",
        "bn.running_mean": "bn.moving_mean",
        "bn.running_var": "bn.moving_variance",
        "blocks.0.norm.weight": "blocks.0.norm.gamma",
        "blocks.0.norm.bias": "blocks.0.norm.beta",
        "blocks.1.norm.weight": "blocks.1.norm.gamma",
        "blocks.1.norm.bias": "blocks.1.norm.beta",
    }
    assert report["tied"] == [["head.weight", "emb.weight"]]
    assert report["reshaped"] == [["conv.weight", "[8, 8, 3] -> [8, 8, 1, 3]"]]
    assert [key for key, _ in report["dropped"]] == ["bn.num_batches_tracked"]


@pytest.mark.parametrize(
    ("change", "key", "reason"),
    [
        (
            "renamed",
            "blocks.0.fc.weights",
            "unused: no parameter of the converted model takes this name",
        ),
        ("renamed", "blocks.0.fc.weight", "no tensor in the state_dict for it"),
        ("missing", "bn.moving_variance", "looked for `bn.running_var`"),
        (
            "shape",
            "conv.bias",
            "shape [9] in the state_dict, [8] in the converted model",
        ),
        ("untied", "head.weight", "ties it to `emb.weight`"),
    ],
)
def test_a_misfit_writes_nothing_and_names_the_key(
    trained, change, key, reason
) -> None:
    torch = require_module("torch")
    root, converted, state, *_ = trained
    state = dict(state)
    if change == "renamed":
        state["blocks.0.fc.weights"] = state.pop("blocks.0.fc.weight")
    elif change == "missing":
        del state["bn.running_var"]
    elif change == "shape":
        state["conv.bias"] = torch.zeros(9)
    else:
        state["head.weight"] = state["head.weight"] + 1
    source = os.path.join(root, f"{change}.pth")
    torch.save(state, source)
    target = os.path.join(root, f"{change}.ckpt")
    result = _weights(source, target, converted)
    assert result.exit_code == 1, result.output
    assert "nothing written" in result.output
    line = next(x for x in result.output.splitlines() if x.startswith(f"  {key}:"))
    assert reason in line
    assert not os.path.exists(target)
    assert not [n for n in os.listdir(root) if n.endswith(".partial.ckpt")]


def test_a_model_that_cannot_be_built_is_exit_2(trained) -> None:
    root, converted, *_ = trained
    result = CliRunner().invoke(
        main,
        ["weights", os.path.join(root, "net.pth"), os.path.join(root, "x.ckpt"), "--converted",
         converted, "--model", "tinynet.model:Nett()", "--mindspore-python", sys.executable],
    )  # fmt: skip
    assert result.exit_code == 2
    assert "NameError" in result.output and "Nett" in result.output


# The converted model on MindSpore, torch unimportable: loaded three ways, the same state.
THREE_LOADS = """
import json, sys
import numpy as np
sys.modules["torch"] = None
converted, root, ids = sys.argv[1:4]
sys.path.insert(0, converted)
import mindspore
from tinynet import model
torch_way = model.load_trained(root + "/net.pth")  # converted: the companion reads net.pth
bundle_way = model.load_bundle(root + "/bundle.pth")  # the companion reads torch's file
plain = model.build()
unloaded, unused = mindspore.load_param_into_net(plain, mindspore.load_checkpoint(root + "/plain.ckpt"))
plain.set_train(False)
states = [{p.name: p.asnumpy() for p in net.get_parameters()} for net in (torch_way, bundle_way, plain)]
x = mindspore.Tensor(np.load(ids))
outputs = [net(x).asnumpy() for net in (torch_way, bundle_way, plain)]
np.savez(root + "/three.npz", *outputs)
print(json.dumps({
    "unloaded": list(unloaded), "unused": list(unused),
    "names": [sorted(s) for s in states],
    "equal": [all(np.array_equal(s[k], states[2][k]) for k in states[2]) for s in states[:2]],
}))
"""


def test_torch_way_and_weights_command_end_in_the_same_state(trained) -> None:
    root, converted, _, ids, expected = trained
    for target in (
        "net.pth",
        "plain.ckpt",
    ):  # net.pth.ckpt: what the converted torch.load(path) reads where path is absent
        result = _weights(
            os.path.join(root, "net.pth"), os.path.join(root, target), converted
        )
        assert result.exit_code == 0, result.output
    np.save(os.path.join(root, "ids.npy"), ids)
    done = subprocess.run(
        [sys.executable, "-c", THREE_LOADS, converted, root, os.path.join(root, "ids.npy")],
        capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["unloaded"] == [] and report["unused"] == []
    assert report["names"][0] == report["names"][1] == report["names"][2]
    assert len(report["names"][2]) == 13
    assert report["equal"] == [True, True]
    outputs = np.load(os.path.join(root, "three.npz"))
    for key in outputs.files:
        np.testing.assert_allclose(outputs[key], expected, rtol=1e-5, atol=1e-6)
