"""TM305 parameters()/named_parameters(), TM307 devices, TM308 train/eval and torch's training default."""

from __future__ import annotations

import pytest
from conftest import convert_checked
from torch2ms.migrator.convert import convert_source

NET = "import torch.nn as nn\n\nclass Net(nn.Module):\n    pass\n\n"
NET_OUT = "from mindspore import nn\n\nclass Net(nn.Cell):\n    pass\n\n"
BN_NET = (
    "import torch.nn as nn\n\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    "        self.drop = nn.Dropout(0.1)\n\n"
)


def convert(source: str):
    result = convert_source(source, "case.py")
    assert convert_source(result.code, "case.py").code == result.code  # idempotent
    compile(result.code, "case.py", "exec")
    return result


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(
            NET
            + "net = Net()\nparams = list(net.parameters())\nnames = [n for n, _ in net.named_parameters(prefix='m', recurse=True)]\n",
            NET_OUT
            + "net = Net()\nparams = list(net.trainable_params())\nnames = [n for n, _ in net.parameters_and_names(name_prefix='m', expand=True)]\n",
            id="parameters",
        ),
        pytest.param(
            NET
            + "net = Net()\nnet.eval()\nnet.train()\nnet.train(False)\nnet.train(mode=True)\n",
            NET_OUT
            + "net = Net()\nnet.set_train(False)\nnet.set_train()\nnet.set_train(False)\nnet.set_train(True)\n",
            id="modes",
        ),
        pytest.param(
            NET
            + "net = Net()\nnet.to_empty(device=d)\nnet.to_empty(device='cpu', recurse=False)\n",
            NET_OUT + "net = Net()\nnet.to_empty()\nnet.to_empty(recurse=False)\n",
            id="to-empty-on-the-context-device",
        ),
        pytest.param(
            "import torch.nn as nn\n\nclass Net(nn.Module):\n    def freeze(self):\n        self.eval()\n        super().train(False)\n",
            "from mindspore import nn\n\nclass Net(nn.Cell):\n    def freeze(self):\n        self.set_train(False)\n        super().set_train(False)\n",
            id="modes-on-self",
        ),
        pytest.param(
            "import torch\n\ndevice = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n\ndef step(model, x, y):\n"
            "    x, y = x.to(device), y.to(device)\n    model = model.to(device)\n    out = model(x).cpu()\n    return out\n",
            "\ndef step(model, x, y):\n    out = model(x)\n    return out\n",
            id="devices",
        ),
        pytest.param(
            "import torch\n\ndef f(model):\n    if model:\n        model.cpu()\n    return model\n",
            "\ndef f(model):\n    if model:\n        pass\n    return model\n",
            id="emptied-block",
        ),
    ],
)
def test_rewrites(before: str, after: str) -> None:
    result = convert(before)
    assert result.code == after
    assert not [f for f in result.findings if f.severity == "error"]


def test_set_train_after_construction_of_mode_dependent_module() -> None:
    code = convert(BN_NET + "def main():\n    model = Net()\n    print(model)\n").code
    assert "    model = Net()\n    model.set_train()\n    print(model)\n" in code


@pytest.mark.parametrize(
    "tail",
    [
        pytest.param("net = Net()\nnet.eval()\n", id="mode-set-next"),
        pytest.param(
            "class Holder:\n    def __init__(self):\n        self.net = Net()\n",
            id="attribute",
        ),
        pytest.param("nets = [Net()]\nother = nets[0]\n", id="not-a-construction"),
    ],
)
def test_no_extra_set_train(tail: str) -> None:
    code = convert(BN_NET + tail).code
    assert "set_train()" not in code


def test_no_set_train_without_mode_dependent_layers() -> None:
    code = convert(NET + "net = Net()\n").code
    assert "set_train" not in code


@pytest.mark.parametrize(
    ("source", "kept"),
    [
        pytest.param(
            "import torch\n\ndef go(trainer):\n    trainer.train()\n",
            "trainer.train()",
            id="not-a-module",
        ),
        pytest.param(
            "import torch\n\ndef build(thing):\n    return list(thing.parameters())\n",
            "thing.parameters()",
            id="unknown-receiver",
        ),
        pytest.param(
            "import torch\n\ndef f(x, other):\n    return x.to(other)\n",
            "x.to(other)",
            id="to-unknown",
        ),
        pytest.param(
            "import torch\n\ndef f(m):\n    return m.eval(1)\n",
            "m.eval(1)",
            id="eval-with-args",
        ),
    ],
)
def test_not_rewritten(source: str, kept: str) -> None:
    assert kept in convert(source).code


@pytest.mark.parametrize(
    ("source", "expected", "rule"),
    [
        pytest.param(
            "import torch\n\ndef f(model):\n    model.eval()\n",
            "model.set_train(False)",
            "TM932",
            id="guessed-module",
        ),
        pytest.param(
            "import torch\n\ndef f(x):\n    return x.cuda(1)\n",
            "return x\n",
            "TM934",
            id="gpu-note",
        ),
        pytest.param(
            "import torch.nn as nn\n\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            "        self.bn = nn.BatchNorm1d(2)\n\nnet = Net()\nfor n, p in net.named_parameters():\n    pass\n",
            "net.parameters_and_names()",
            "TM933",
            id="named-with-statistics",
        ),
    ],
)
def test_rewritten_with_finding(source: str, expected: str, rule: str) -> None:
    result = convert(source)
    assert expected in result.code
    assert rule in {f.rule for f in result.findings}


def test_device_kept_while_used() -> None:
    code = convert("import torch\n\ndevice = torch.device('cpu')\nprint(device)\n").code
    # Still read, the definition stays, as the companion's device (a name kept as data).
    assert "device = ms_aux.device('cpu')" in code


def test_device_never_read_keeps_its_value() -> None:
    # Nothing in the source reads it: the value is the program's own, not a removed move's.
    code = convert("import torch\n\nresult = torch.device('cpu:1')\n").code
    assert "result = ms_aux.device('cpu:1')" in code
    # Read only by a move the conversion removes: the definition goes with the move.
    code = convert(
        "import torch\n\ndevice = torch.device('cpu')\n\ndef f(x):\n    return x.to(device)\n"
    ).code
    assert "device =" not in code


def test_to_a_device_built_in_place_is_removed() -> None:
    code = convert(
        "import torch\n\ndef f(x):\n    return x.to(torch.device('cpu'), torch.float64)\n"
    ).code
    assert "return x.to(mindspore.float64)" in code
    assert "device" not in code


def test_to_keeps_dtype() -> None:
    code = convert(
        "import torch\n\ndef f(x, device):\n    return x.to(device, torch.float64)\n"
    ).code
    assert "device" not in code.split("def f")[1].split(":", 1)[1]
    assert "float64" in code


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        ("net.named_modules()", "net.cells_and_names()"),
        ("net.modules()", "(cell for _, cell in net.cells_and_names())"),
        ("net.children()", "net.cells()"),
        ("net.named_children()", "net.name_cells().items()"),
    ],
)
def test_traversals(call: str, expected: str) -> None:
    result = convert(NET + f"net = Net()\nitems = list({call})\n")
    assert result.code == NET_OUT + f"net = Net()\nitems = list({expected})\n"


def test_traversal_with_arguments_kept() -> None:
    assert (
        "net.named_modules(prefix='x')"
        in convert(
            NET + "net = Net()\nitems = list(net.named_modules(prefix='x'))\n"
        ).code
    )


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        ("torch.device", "str"),
        ("Optional[torch.device]", "Optional[str]"),
        ("device", "str"),
    ],
)
def test_device_annotations(annotation: str, expected: str) -> None:
    code = convert(
        f"import torch\nfrom torch import device\nfrom typing import Optional\n\ndef f(d: {annotation}, m: 'x.device'):\n    return d\n"
    ).code
    assert f"def f(d: {expected}, m: 'x.device'):" in code


def test_cells_sharing_an_optimizer_get_unique_parameter_names() -> None:
    result = convert(
        "import torch\nimport torch.nn as nn\n\nenc = nn.Linear(3, 5)\ndec = nn.Linear(5, 1)\n# one optimizer\n"
        "optimizer = torch.optim.SGD(list(enc.parameters()) + list(dec.parameters()), lr=0.1)\n"
        "single = torch.optim.SGD(enc.parameters(), lr=0.1)\n"
    )
    assert (
        '# one optimizer\nenc.update_parameters_name("enc.")\ndec.update_parameters_name("dec.")\n'
        "optimizer = optim.SGD(list(enc.trainable_params()) + list(dec.trainable_params()), lr=0.1)\n"
        "single = optim.SGD(enc.trainable_params(), lr=0.1)\n"
    ) in result.code


@pytest.mark.real
def test_cells_sharing_an_optimizer_run_on_mindspore() -> None:
    pytest.importorskip("mindspore")
    code = convert(
        "import torch\nimport torch.nn as nn\n\nenc = nn.Linear(3, 5)\ndec = nn.Linear(5, 1)\n"
        "optimizer = torch.optim.SGD([{'params': enc.parameters()}, {'params': dec.parameters()}], lr=0.1)\n"
    ).code
    scope: dict = {}
    exec(compile(code, "case.py", "exec"), scope)  # noqa: S102 (the conversion under test)
    assert [p.name for p in scope["optimizer"].parameters] == [
        "enc.weight",
        "enc.bias",
        "dec.weight",
        "dec.bias",
    ]


def test_add_module_registers_a_named_child_cell() -> None:
    source = (
        "import torch.nn as nn\n\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        for i in range(2):\n"
        '            self.add_module(f"layer{i}", nn.Linear(2, 2))\n'
        '        self.register_module("head", nn.ReLU())\n'
    )
    code = convert_checked(source).code
    assert 'ms_aux.add_module(self, f"layer{i}", nn.Dense(2, 2))' in code
    assert 'ms_aux.add_module(self, "head", nn.ReLU())' in code


def test_attributes_read_under_an_isinstance_check_take_mindspores_names() -> None:
    source = (
        "import torch.nn as nn\n\n"
        "def init(m):\n"
        "    if isinstance(m, nn.Conv2d):\n"
        "        fan = m.out_channels // m.groups\n"
        "    elif isinstance(m, nn.BatchNorm2d):\n"
        "        w = m.weight\n"
        "    elif isinstance(m, nn.Linear):\n"
        "        r = 1.0 / m.in_features\n"
        "    else:\n"
        "        x = m.groups\n"
    )
    code = convert_checked(source).code
    assert "fan = m.out_channels // m.group\n" in code
    assert "w = m.gamma\n" in code
    assert "r = 1.0 / m.in_channels\n" in code
    # the else branch knows nothing of m
    assert "x = m.groups\n" in code


def test_a_container_cut_to_a_slice_of_itself_stays_a_module() -> None:
    source = (
        "import torch.nn as nn\n\n"
        "class Stage(nn.Module):\n    pass\n\n"
        "class Net(nn.Module):\n"
        "    def __init__(self, dims):\n"
        "        super().__init__()\n"
        "        self.blocks = nn.ModuleList([Stage() for d in dims])\n\n"
        "    def prune(self, n):\n"
        "        self.blocks = self.blocks[:n]\n\n"
        "    def no_decay(self):\n"
        "        return {'blocks.' + n for n, _ in self.blocks.named_parameters()}\n"
    )
    result = convert(source)
    assert "self.blocks.parameters_and_names()" in result.code
    assert not [f for f in result.findings if f.severity == "error"]


HOOK_NET = NET + "net = Net()\n"


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (
            "net.register_forward_hook(hook=f, prepend=False, always_call=False)",
            "net.register_forward_hook(f, prepend=False, always_call=False)",
        ),
        (
            "net.register_forward_pre_hook(prepend=True, hook=f)",
            "net.register_forward_pre_hook(f, prepend=True)",
        ),
        ("net.register_full_backward_hook(f)", "net.register_backward_hook(f)"),
        (
            "net.register_full_backward_pre_hook(hook=f)",
            "net.register_backward_pre_hook(f)",
        ),
        # torch's default spelled out: it means what the Cell's method does without it.
        (
            "net.register_full_backward_hook(f, prepend=False)",
            "net.register_backward_hook(f)",
        ),
        ("net.register_forward_hook(f)", "net.register_forward_hook(f)"),
        (
            "net.register_forward_hook(f, **opts)",
            "net.register_forward_hook(f, **opts)",
        ),
    ],
)
def test_hooks_in_the_cells_form(call: str, expected: str) -> None:
    result = convert(HOOK_NET + "f = print\n" + call + "\n")
    assert expected + "\n" in result.code
    assert not [f for f in result.findings if f.rule == "TM962"]


@pytest.mark.parametrize(
    ("call", "reason"),
    [
        ("net.register_full_backward_hook(f, prepend=True)", "takes no `prepend`"),
        (
            "net.register_full_backward_pre_hook(f, prepend=first)",
            "known only at run time",
        ),
        ("net.register_full_backward_hook(f, **opts)", "takes the hook only"),
        ("net.register_forward_hook(f, True)", "keyword only"),
    ],
)
def test_hook_options_the_cell_lacks_are_reported_at_their_line(
    call: str, reason: str
) -> None:
    """A registration a Cell cannot take as written stays, with a finding at its line that says
    which option has no counterpart."""
    source = HOOK_NET + "f = print\n" + call + "\n"
    result = convert(source)
    assert call + "\n" in result.code
    (finding,) = [f for f in result.findings if f.rule == "TM962"]
    assert reason in finding.message
    assert finding.line == source.count("\n")


@pytest.mark.real
def test_full_backward_hooks_see_what_the_cells_backward_hooks_see(fw) -> None:
    """The rename rests on this: torch's full backward (pre-)hook and the Cell's backward
    (pre-)hook receive the same gradients for the same layer."""
    import numpy as np

    torch, ms = fw
    w = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.25]], np.float32)
    x = np.array([[1.0, -2.0]], np.float32)
    scale = [[1.0, 2.0, 3.0]]
    seen: dict = {}

    def keep(key):
        return lambda _m, *grads: seen.__setitem__(
            key, [[np.asarray(g) for g in group] for group in grads]
        )

    layer = torch.nn.Linear(2, 3, bias=False)
    layer.weight.data = torch.tensor(w)
    layer.register_full_backward_hook(keep("torch"))
    layer.register_full_backward_pre_hook(keep("torch_pre"))
    (layer(torch.tensor(x, requires_grad=True)) * torch.tensor(scale)).sum().backward()
    cell = ms.nn.Dense(2, 3, has_bias=False)
    cell.weight.set_data(ms.Tensor(w))
    cell.register_backward_hook(keep("ms"))
    cell.register_backward_pre_hook(keep("ms_pre"))
    ms.grad(lambda v: (cell(v) * ms.Tensor(scale)).sum())(ms.Tensor(x))
    for torch_key, ms_key in (("torch", "ms"), ("torch_pre", "ms_pre")):
        assert len(seen[torch_key]) == len(seen[ms_key])
        for a, b in zip(seen[torch_key], seen[ms_key]):
            np.testing.assert_allclose(np.stack(b), np.stack(a), rtol=1e-6)
