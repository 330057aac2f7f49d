"""Layer classes named without a call, subclassed, or called with arguments the idiom refuses:
the converter writes the companion class (`ms_aux.X`), and converting again changes nothing."""

from __future__ import annotations

import sys

import pytest
from conftest import convert_checked
from torch2ms.rules.companion import assemble, closure
from torch2ms.rules.companion.table_layers import ENTRIES

HEAD = "import torch\nimport torch.nn as nn\n\n\n"

REWRITES = [
    # Passed as a value to code the converter cannot see.
    (
        HEAD + "block = make_block(64, act_layer=nn.GELU)\n",
        "import ms_aux\n\n\nblock = make_block(64, act_layer=ms_aux.GELU)\n",
        {"GELU"},
    ),
    # A parameter default that is called with torch's arguments.
    (
        HEAD + "def block(act_layer=nn.ReLU):\n    return act_layer(inplace=True)\n",
        "import ms_aux\n\n\ndef block(act_layer=ms_aux.ReLU):\n    return act_layer(inplace=True)\n",
        {"ReLU"},
    ),
    # Bound to a name.
    (
        HEAD + "def build(c, norm_layer=None):\n"
        "    norm_layer = norm_layer or nn.BatchNorm2d\n"
        "    return norm_layer(c, eps=1e-3, momentum=0.01)\n",
        (
            "import ms_aux\n\n\ndef build(c, norm_layer=None):\n"
            "    norm_layer = norm_layer or ms_aux.BatchNorm2d\n"
            "    return norm_layer(c, eps=1e-3, momentum=0.01)\n"
        ),
        {"BatchNorm2d"},
    ),
    # Inside functools.partial.
    (
        (
            "from functools import partial\n\nimport torch.nn as nn\n\n"
            "norm_layer = partial(nn.LayerNorm, eps=1e-6)\n"
        ),
        (
            "from functools import partial\n\nimport ms_aux\n\n"
            "norm_layer = partial(ms_aux.LayerNorm, eps=1e-6)\n"
        ),
        {"LayerNorm"},
    ),
    # A base class: the subclass keeps torch's constructor and attribute names.
    (
        HEAD + "class BatchNormAct2d(nn.BatchNorm2d):\n"
        "    def forward(self, x):\n        return super().forward(x) * self.weight.mean()\n",
        (
            "import ms_aux\n\n\nclass BatchNormAct2d(ms_aux.BatchNorm2d):\n"
            "    def construct(self, x):\n        return super().construct(x) * self.weight.mean()\n"
        ),
        {"BatchNorm2d"},
    ),
    (
        "import torch\n\n\nclass PReLU(torch.nn.PReLU):\n    pass\n",
        "import ms_aux\n\n\nclass PReLU(ms_aux.PReLU):\n    pass\n",
        {"PReLU"},
    ),
    # The module torch defines the class in.
    (
        "import torch\n\nlayer = torch.nn.modules.batchnorm.SyncBatchNorm\n",
        "import ms_aux\n\nlayer = ms_aux.SyncBatchNorm\n",
        {"SyncBatchNorm"},
    ),
    # Calls whose arguments the idiom mapping refuses take the companion class, as they are.
    (
        HEAD + "def build(c, **kwargs):\n    return nn.BatchNorm2d(c, **kwargs)\n",
        "import ms_aux\n\n\ndef build(c, **kwargs):\n    return ms_aux.BatchNorm2d(c, **kwargs)\n",
        {"BatchNorm2d"},
    ),
    (
        HEAD + "m = nn.Conv2d(3, 8, 4, padding='same', padding_mode='reflect')\n",
        "import ms_aux\n\n\nm = ms_aux.Conv2d(3, 8, 4, padding='same', padding_mode='reflect')\n",
        {"Conv2d"},
    ),
    (
        HEAD + "m = nn.LayerNorm((4, 8), elementwise_affine=False)\n",
        "import ms_aux\n\n\nm = ms_aux.LayerNorm((4, 8), elementwise_affine=False)\n",
        {"LayerNorm"},
    ),
    (
        HEAD + "m = nn.Linear(*shape)\n",
        "import ms_aux\n\n\nm = ms_aux.Linear(*shape)\n",
        {"Linear"},
    ),
]


@pytest.mark.parametrize(("before", "after", "used"), REWRITES)
def test_companion_layer_classes(before: str, after: str, used: set[str]) -> None:
    result = convert_checked(before)
    assert result.code == after
    assert result.companion == used
    assert not [f for f in result.findings if f.severity == "error"], result.findings


KEPT = [
    # Type checks and annotations keep the idiom class, which the companion class derives from.
    (
        HEAD + "norm = nn.BatchNorm2d\nok = isinstance(m, nn.BatchNorm2d)\n",
        (
            "from mindspore import nn\nimport ms_aux\n\n\n"
            "norm = ms_aux.BatchNorm2d\nok = isinstance(m, nn.BatchNorm2d)\n"
        ),
    ),
    (
        HEAD + "def f(m: nn.LayerNorm) -> nn.Linear:\n    return m\n",
        "from mindspore import nn\n\n\ndef f(m: nn.LayerNorm) -> nn.Dense:\n    return m\n",
    ),
    # Calls the idiom maps with certainty keep it.
    (
        HEAD + "m = nn.BatchNorm2d(8, eps=1e-3, momentum=0.2)\n",
        "from mindspore import nn\n\n\nm = nn.BatchNorm2d(8, eps=1e-3, momentum=0.8)\nm.set_train()\n",
    ),
    # A plain drop-in stays the idiom class even as a value.
    (HEAD + "gate = nn.Sigmoid\n", "from mindspore import nn\n\n\ngate = nn.Sigmoid\n"),
]


@pytest.mark.parametrize(("before", "after"), KEPT)
def test_idiom_kept(before: str, after: str) -> None:
    assert convert_checked(before).code == after


def test_ascend_keeps_mint_class_values() -> None:
    """With the mint target, a torch-aligned `mint.nn` class wins over the companion class."""
    result = convert_checked(
        HEAD + "def block(act_layer=nn.GELU, norm=nn.BatchNorm2d):\n"
        "    return act_layer(approximate='tanh'), norm(8, momentum=0.01)\n",
        target="ascend",
    )
    assert "act_layer=mint.nn.GELU" in result.code
    assert "norm=ms_aux.BatchNorm2d" in result.code
    assert result.companion == {"BatchNorm2d"}


def test_assembled_module_holds_what_the_classes_need() -> None:
    text = assemble(["BatchNorm2d", "Conv2d"])
    compile(text, "ms_aux.py", "exec")
    # `reset_parameters()` brings torch's initialisation (library/parameters.py) along.
    assert closure(["BatchNorm2d"]) == [
        "calculate_fan_in_and_fan_out",
        "_FLOAT_DTYPES",
        "_parameters_in",
        "_constant",
        "_TorchNames",
        "_TorchBatchNorm",
        "BatchNorm2d",
        "_fill_",
        "_init_without_generator",
        "calculate_gain",
        "init_uniform_",
        "init_normal_",
        "_kaiming_std",
        "init_kaiming_uniform_",
        "_reset_layer",
    ]
    assert "class Conv2d(_TorchConv, nn.Conv2d)" in text and "def _conv_padding" in text
    assert "class LayerNorm" not in text
    for name in set(ENTRIES.values()):
        compile(assemble([name]), "ms_aux.py", "exec")


# -- a converted model on the real frameworks -------------------------------------------------

MODEL = """\
from functools import partial

import torch
import torch.nn as nn


class ConvNormAct(nn.Module):
    def __init__(self, cin, cout, norm_layer=None, act_layer=nn.ReLU, **dd):
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2d
        self.conv = nn.Conv2d(cin, cout, 3, padding=1, bias=False)
        self.bn = norm_layer(cout, eps=1e-3, momentum=0.01, **dd)
        self.act = act_layer(inplace=True)

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class Norm2d(nn.LayerNorm):
    def forward(self, x):
        return super().forward(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)


class Net(nn.Module):
    def __init__(self, norm_layer=partial(nn.LayerNorm, eps=1e-6), act_layer=nn.GELU):
        super().__init__()
        self.stem = ConvNormAct(3, 8, act_layer=nn.Hardswish)
        self.block = ConvNormAct(8, 8, norm_layer=nn.BatchNorm2d, act_layer=nn.SiLU)
        self.pool = build_pool(nn.AvgPool2d)
        self.norm2d = Norm2d(8)
        self.norm = norm_layer(8)
        self.fc = nn.Linear(8, 4)
        self.act = act_layer()

    def forward(self, x):
        x = self.norm2d(self.pool(self.block(self.stem(x))))
        return self.fc(self.act(self.norm(x.mean((2, 3)))))


def build_pool(pool_layer):
    return pool_layer(3, 2, 1, count_include_pad=False)
"""


@pytest.mark.real
def test_converted_model_matches_torch(fw, tmp_path, monkeypatch) -> None:
    import numpy as np
    from torch2ms.migrator.weights import convert_state

    torch, ms = fw
    result = convert_checked(MODEL)
    assert "torch" not in result.code, result.code
    assert result.companion >= {"BatchNorm2d", "LayerNorm", "ReLU", "SiLU", "AvgPool2d"}
    (tmp_path / "ms_aux.py").write_text(
        assemble(sorted(result.companion)), encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "ms_aux", raising=False)
    original: dict = {}
    converted: dict = {}
    exec(compile(MODEL, "original", "exec"), original)  # noqa: S102 - our snippet
    exec(compile(result.code, "converted", "exec"), converted)  # noqa: S102 - its conversion
    torch.manual_seed(0)
    net, ms_net = original["Net"](), converted["Net"]()
    with torch.no_grad():
        for name, p in net.named_parameters():
            if name.endswith(("norm.weight", "norm2d.weight", "bn.weight")):
                p.uniform_(0.5, 1.5)
    state = {k: v.numpy() for k, v in net.state_dict().items()}
    params = dict(ms_net.parameters_and_names())
    entries = convert_state(state).entries
    assert {e.name for e in entries} == set(
        params
    )  # one checkpoint naming for the whole model
    for entry in entries:
        params[entry.name].set_data(ms.Tensor(entry.array))

    rng = np.random.default_rng(0)
    trainable = ms_net.trainable_params()
    for training in (True, True, False):
        net.train(training)
        ms_net.set_train(training)
        x = rng.standard_normal((2, 3, 9, 9)).astype(np.float32)
        xt = torch.tensor(x, requires_grad=True)
        out = net(xt)
        out.sum().backward()
        (_, ms_out), (gx, grads) = ms.value_and_grad(
            lambda inp: _sum_and_out(ms_net, inp),
            0,
            trainable,
            has_aux=True,
        )(ms.Tensor(x))
        np.testing.assert_allclose(
            ms_out.asnumpy(), out.detach().numpy(), rtol=1e-4, atol=1e-5
        )
        np.testing.assert_allclose(gx.asnumpy(), xt.grad.numpy(), rtol=1e-4, atol=1e-5)
        torch_grads = {
            e.name: e.array
            for e in convert_state(
                {n: p.grad.numpy() for n, p in net.named_parameters()}
            ).entries
        }
        for param, grad in zip(trainable, grads):
            name = param.name
            np.testing.assert_allclose(
                grad.asnumpy(), torch_grads[name], rtol=1e-4, atol=1e-5, err_msg=name
            )
        net.zero_grad()
    for entry in convert_state(
        {k: v.numpy() for k, v in net.state_dict().items()}
    ).entries:
        np.testing.assert_allclose(
            params[entry.name].asnumpy(),
            entry.array,
            rtol=1e-4,
            atol=1e-5,
            err_msg=entry.name,
        )


def _sum_and_out(net, inp):
    out = net(inp)
    return out.sum(), out


def test_a_layer_given_a_dtype_it_cannot_read_uses_the_companion_class() -> None:
    source = (
        "import torch.nn as nn\n\n"
        "def head(n, c, device=None, dtype=None):\n"
        "    return nn.Linear(n, c, bias=True, device=device, dtype=dtype), nn.Linear(n, c)\n"
    )
    code = convert_checked(source).code
    assert "ms_aux.Linear(n, c, bias=True, device=device, dtype=dtype)" in code
    assert "nn.Dense(n, c)" in code
