"""TM320/TM321: state dicts saved and loaded as MindSpore checkpoints."""

from __future__ import annotations

import pytest
from torch2ms.migrator.convert import convert_source

NET = "import torch\nimport torch.nn as nn\n\nclass Net(nn.Module):\n    pass\n\nnet = Net()\n"
NET_OUT = "import mindspore\nfrom mindspore import nn\n\nclass Net(nn.Cell):\n    pass\n\nnet = Net()\n"


def convert(source: str):
    result = convert_source(source, "case.py")
    assert convert_source(result.code, "case.py").code == result.code
    compile(result.code, "case.py", "exec")
    return result


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(
            "torch.save(net.state_dict(), 'a.pth')\n",
            "mindspore.save_checkpoint(net, 'a.pth')\n",
            id="save",
        ),
        pytest.param(
            "net.load_state_dict(torch.load('a.pth', map_location='cpu', weights_only=True))\n",
            "mindspore.load_param_into_net(net, mindspore.load_checkpoint('a.pth.ckpt'))\n",
            id="load",
        ),
        pytest.param(
            "state = torch.load(path)\nnet.load_state_dict(state, strict=False)\n",
            'state = mindspore.load_checkpoint(path if path.endswith(".ckpt") else path + ".ckpt")\n'
            "mindspore.load_param_into_net(net, state)\n",
            id="load-through-name",
        ),
        pytest.param(
            "best = net.state_dict()\nnet.load_state_dict(best)\n",
            "best = net.parameters_dict()\nmindspore.load_param_into_net(net, best)\n",
            id="in-memory",
        ),
    ],
)
def test_rewrites(before: str, after: str) -> None:
    result = convert(NET + before)
    assert result.code == NET_OUT + after
    assert not result.findings


@pytest.mark.parametrize(
    ("tail", "kept", "rule"),
    [
        pytest.param(
            "torch.save(net, 'net.pt')\n",
            "torch.save(net, 'net.pt')",
            "TM937",
            id="whole-model",
        ),
        pytest.param(
            "torch.save({'model': net.state_dict(), 'epoch': 3}, 'c.pt')\n",
            "torch.save({'model': net.parameters_dict(), 'epoch': 3}, 'c.pt')",
            "TM937",
            id="bundle",
        ),
        pytest.param(
            "ckpt = torch.load('c.pt')\nnet.load_state_dict(ckpt['model'])\n",
            "net.load_state_dict(ckpt['model'])",
            "TM937",
            id="bundle-load",
        ),
        pytest.param(
            "x = torch.load('t.pt')\nprint(x)\n",
            "torch.load('t.pt')",
            "TM940",
            id="tensor-load",
        ),
        pytest.param(
            "net.load_state_dict(torch.load(make_path()))\n",
            "torch.load(make_path())",
            "TM937",
            id="computed-path",
        ),
    ],
)
def test_reported(tail: str, kept: str, rule: str) -> None:
    result = convert(NET + tail)
    assert kept in result.code
    assert rule in {f.rule for f in result.findings}


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("'w.ckpt'", "'w.ckpt'"),
        ('"w.pth"', '"w.pth.ckpt"'),
        ("'w'", "'w.ckpt'"),
        ("cfg.path", 'cfg.path if cfg.path.endswith(".ckpt") else cfg.path + ".ckpt"'),
    ],
)
def test_load_path_names_the_saved_file(path: str, expected: str) -> None:
    code = convert(NET + f"net.load_state_dict(torch.load({path}))\n").code
    assert f"mindspore.load_checkpoint({expected})" in code


def test_optimizer_state_dict_left() -> None:
    result = convert("import torch\n\ndef f(opt):\n    return opt.state_dict()\n")
    assert "opt.state_dict()" in result.code
    assert "TM900" in {f.rule for f in result.findings}
