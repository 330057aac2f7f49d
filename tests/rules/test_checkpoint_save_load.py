"""TM320/TM321: state dicts saved and loaded as MindSpore checkpoints under `.ckpt` names; TM322:
every other save and load through the companion."""

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
            "torch.save(net.state_dict(), 'a.ckpt')\n",
            "mindspore.save_checkpoint(net, 'a.ckpt')\n",
            id="save",
        ),
        pytest.param(
            "net.load_state_dict(torch.load('a.ckpt', map_location='cpu', weights_only=True))\n",
            "mindspore.load_param_into_net(net, mindspore.load_checkpoint('a.ckpt'))\n",
            id="load",
        ),
        pytest.param(
            "state = torch.load('a.ckpt')\nnet.load_state_dict(state, strict=False)\n",
            "state = mindspore.load_checkpoint('a.ckpt')\n"
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


def test_a_whole_module_saved_goes_through_the_companion_with_what_differs() -> None:
    """`torch.save(net, f)`: the companion's save (a load in the same run gives back a copy of
    the Cell with the values written); the warning says another process cannot rebuild it."""
    result = convert(NET + "torch.save(net, 'net.pt')\nnet = torch.load('net.pt')\n")
    assert "ms_aux.save(net, 'net.pt')" in result.code
    assert "net = ms_aux.load('net.pt')" in result.code
    assert "import torch" not in result.code
    (finding,) = [f for f in result.findings if f.rule == "TM937"]
    assert finding.severity == "warning"
    assert "another process cannot rebuild the Cell" in finding.message


@pytest.mark.parametrize(
    ("tail", "converted"),
    [
        pytest.param(
            "torch.save({'model': net.state_dict(), 'epoch': 3}, 'c.pt')\n",
            "ms_aux.save({'model': ms_aux.state_dict(net), 'epoch': 3}, 'c.pt')",
            id="bundle",
        ),
        pytest.param(
            "ckpt = torch.load('c.pt')\nnet.load_state_dict(ckpt['model'])\n",
            "ckpt = ms_aux.load('c.pt')\nms_aux.load_state_dict(net, ckpt['model'])",
            id="bundle-load",
        ),
        pytest.param(
            "x = torch.load('t.pt')\nprint(x)\n",
            "x = ms_aux.load('t.pt')",
            id="tensor-load",
        ),
        pytest.param(
            "net.load_state_dict(torch.load(make_path()))\n",
            "ms_aux.load_state_dict(net, ms_aux.load(make_path()))",
            id="computed-path",
        ),
        pytest.param(
            "def f(opt):\n    return opt.state_dict(), opt.load_state_dict(s)\n",
            "return ms_aux.state_dict(opt), ms_aux.load_state_dict(opt, s)",
            id="receiver-not-known",
        ),
        pytest.param(
            "def restore(state):\n    net.load_state_dict(state, strict=False)\n",
            "ms_aux.load_state_dict(net, state, strict=False)",
            id="state-from-elsewhere",
        ),
    ],
)
def test_the_rest_keeps_torchs_semantics_through_the_companion(
    tail: str, converted: str
) -> None:
    result = convert(NET + tail)
    assert converted in result.code
    assert "torch" not in result.code.replace("ms_aux", "")
    assert not [f for f in result.findings if f.severity == "error"]
    assert "TM322" in result.rules_applied


@pytest.mark.parametrize(
    "path", ["'w.pth'", '"w"', "PATH", "cfg.path", "make_path()", "f'{x}.ckpt'"]
)
def test_a_path_not_named_as_a_checkpoint_keeps_its_file(path: str) -> None:
    """`save_checkpoint` appends `.ckpt` to any other name and `load_checkpoint` reads no other:
    the companion writes and reads the file the program names, with torch's keys."""
    code = convert(
        NET + f"torch.save(net.state_dict(), {path})\n"
        f"net.load_state_dict(torch.load({path}), True)\n"
    ).code
    assert f"ms_aux.save(ms_aux.state_dict(net), {path})" in code
    assert f"ms_aux.load_state_dict(net, ms_aux.load({path}), True)" in code
    assert "checkpoint" not in code


def test_resuming_an_optimizer_and_scheduler_takes_torchs_state_layout() -> None:
    """`optimizer.load_state_dict(checkpoint['optimizer'])`: the companion reads torch's
    `state`/`param_groups` into MindSpore's torch-style optimizer (its Cell state_dict would not
    take them); tests/companion/test_optim_state_real.py and corpus 455 run it."""
    from torch2ms.rules.companion import assemble

    result = convert(
        NET
        + "optimizer = torch.optim.Adam(net.parameters(), lr=0.1)\n"
        + "scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 2)\n"
        + "checkpoint = torch.load('c.pt')\n"
        + "optimizer.load_state_dict(checkpoint['optimizer'])\n"
        + "scheduler.load_state_dict(checkpoint['scheduler'])\n"
        + "lr = checkpoint['optimizer']['param_groups'][0]['lr']\n"
        + "torch.save({'optimizer': optimizer.state_dict()}, 'c.pt')\n"
    )
    assert "ms_aux.load_state_dict(optimizer, checkpoint['optimizer'])" in result.code
    assert "ms_aux.load_state_dict(scheduler, checkpoint['scheduler'])" in result.code
    assert (
        "ms_aux.save({'optimizer': ms_aux.state_dict(optimizer)}, 'c.pt')"
        in result.code
    )
    assert "torch" not in result.code.replace("ms_aux", "")
    assert not [f for f in result.findings if f.severity == "error"]
    companion = assemble(result.companion)
    for helper in (
        "_optim_load_state_dict",
        "_optim_state_dict",
        "_scheduler_load_state_dict",
    ):
        assert f"def {helper}(" in companion
