"""TM301-TM304: Module → Cell, forward → construct, containers, Parameter, register_buffer."""

from __future__ import annotations

import pytest
from torch2ms.migrator.convert import convert_source


def convert(source: str):
    result = convert_source(source, "case.py")
    assert convert_source(result.code, "case.py").code == result.code  # idempotent
    compile(result.code, "case.py", "exec")
    return result


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(
            "import torch\n\nclass A(torch.nn.Module):\n    def forward(self, x):\n        return x\n",
            "from mindspore import nn\n\nclass A(nn.Cell):\n    def construct(self, x):\n        return x\n",
            id="torch.nn.Module",
        ),
        pytest.param(
            "import torch.nn as nn\n\nclass A(nn.Module):\n    def __init__(self):\n        super(A, self).__init__()\n\n"
            "    def forward(self, x):\n        return x\n\nclass B(A):\n    def forward(self, x):\n"
            "        return super(B, self).forward(x) + A.forward(self, x)\n",
            "from mindspore import nn\n\nclass A(nn.Cell):\n    def __init__(self):\n        super(A, self).__init__()\n\n"
            "    def construct(self, x):\n        return x\n\nclass B(A):\n    def construct(self, x):\n"
            "        return super(B, self).construct(x) + A.construct(self, x)\n",
            id="subclass-and-explicit-forward",
        ),
        pytest.param(
            "import torch.nn as nn\n\nclass Inner(nn.Module):\n    def forward(self, x):\n        return x\n\n"
            "class Outer(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.inner = Inner()\n"
            "        self.blocks = nn.ModuleList([Inner() for _ in range(2)])\n\n    def forward(self, x):\n"
            "        x = self.inner.forward(x)\n        return self.blocks[0].forward(x)\n\nnet = Outer()\ny = net.forward(1)\n",
            "from mindspore import nn\n\nclass Inner(nn.Cell):\n    def construct(self, x):\n        return x\n\n"
            "class Outer(nn.Cell):\n    def __init__(self):\n        super().__init__()\n        self.inner = Inner()\n"
            "        self.blocks = nn.CellList([Inner() for _ in range(2)])\n\n    def construct(self, x):\n"
            "        x = self.inner.construct(x)\n        return self.blocks[0].construct(x)\n\nnet = Outer()\ny = net.construct(1)\n",
            id="submodule-forward-calls",
        ),
        pytest.param(
            "import torch.nn as nn\n\nclass Half(nn.Module):\n    def forward(self, x):\n        return x / 2\n\n"
            "class Stack(nn.Sequential):\n    pass\n\nbody = nn.Sequential(Half(), Half())\n"
            "table = nn.ModuleDict({'a': Half()})\n",
            "from mindspore import nn\nimport ms_aux\n\nclass Half(nn.Cell):\n    def construct(self, x):\n        return x / 2\n\n"
            "class Stack(ms_aux.Sequential):\n    pass\n\nbody = nn.SequentialCell(Half(), Half())\n"
            "table = nn.CellDict({'a': Half()})\n",
            id="containers",
        ),
        pytest.param(
            "import torch\nimport torch.nn as nn\nfrom torch.nn import Parameter\n\nclass S(nn.Module):\n"
            "    def __init__(self, init):\n        super().__init__()\n        self.a = Parameter(init)\n"
            "        self.b = torch.nn.Parameter(init, requires_grad=False)\n        self.c = nn.parameter.Parameter(data=init)\n\n"
            "def is_param(p):\n    return isinstance(p, nn.Parameter)\n",
            "import mindspore\nfrom mindspore import nn\n\nclass S(nn.Cell):\n"
            "    def __init__(self, init):\n        super().__init__()\n        self.a = mindspore.Parameter(init)\n"
            "        self.b = mindspore.Parameter(init, requires_grad=False)\n        self.c = mindspore.Parameter(default_input=init)\n\n"
            "def is_param(p):\n    return isinstance(p, mindspore.Parameter)\n",
            id="parameter",
        ),
        pytest.param(
            "import torch.nn as nn\n\nclass B(nn.Module):\n    def __init__(self, t, names):\n        super().__init__()\n"
            "        self.register_buffer('kept', t)\n        self.register_buffer(name='kw', tensor=t)\n"
            "        self.register_buffer('temp', t, persistent=False)\n        for n in names:\n"
            "            self.register_buffer(n, t)\n",
            "import mindspore\nfrom mindspore import nn\n\nclass B(nn.Cell):\n    def __init__(self, t, names):\n        super().__init__()\n"
            "        self.kept = mindspore.Parameter(t, requires_grad=False)\n        self.kw = mindspore.Parameter(t, requires_grad=False)\n"
            "        self.temp = t\n        for n in names:\n"
            "            setattr(self, n, mindspore.Parameter(t, requires_grad=False))\n",
            id="register_buffer",
        ),
    ],
)
def test_rewrites(before: str, after: str) -> None:
    result = convert(before)
    assert result.code == after
    assert not [f for f in result.findings if f.severity == "error"]


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(
            "import torch\n\nclass Plain:\n    def forward(self, x):\n        return x\n\ndef run(obj, x):\n    return obj.forward(x)\n",
            id="not-a-module",
        ),
        pytest.param(
            "import torch\nfrom lib import Base\n\nclass A(Base):\n    def forward(self, x):\n        return x\n",
            id="unknown-base",
        ),
        pytest.param(
            "import torch.nn as nn\n\nclass A(nn.Module):\n    def run(self, x):\n        def forward(y):\n            return y\n        return forward(x)\n",
            id="nested-forward",
        ),
    ],
)
def test_forward_kept(source: str) -> None:
    assert "forward" in convert(source).code
    assert "construct" not in convert(source).code


@pytest.mark.parametrize(
    ("source", "rule"),
    [
        (
            "import torch.nn as nn\n\nclass B(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.register_buffer('x', None)\n",
            "TM931",
        ),
        (
            "import torch.nn as nn\n\nclass B(nn.Module):\n    def __init__(self, keep):\n        super().__init__()\n        self.register_buffer('x', 1, persistent=keep)\n",
            "TM931",
        ),
        (
            "import torch\n\ndef add(module, t):\n    module.register_buffer('x', t)\n",
            "TM931",
        ),
        ("import torch.nn as nn\n\np = nn.Parameter()\n", "TM900"),
    ],
)
def test_left_and_reported(source: str, rule: str) -> None:
    result = convert(source)
    assert rule in {f.rule for f in result.findings}
    assert "register_buffer" in result.code or "Parameter()" in result.code


def test_train_override_becomes_set_train() -> None:
    result = convert(
        "import torch.nn as nn\n\nclass Net(nn.Module):\n    def train(self, mode=True):\n"
        "        super().train(mode)\n        return self\n"
    )
    assert (
        "    def set_train(self, mode=True):\n        super().set_train(mode)\n"
        in result.code
    )
    assert [f.rule for f in result.findings] == ["TM939"]


@pytest.mark.parametrize(
    "method",
    [
        "def train(self, loader, epochs):\n        return loader",
        "def train(self, *args):\n        return args",
    ],
)
def test_other_train_methods_kept(method: str) -> None:
    code = convert(
        f"import torch.nn as nn\n\nclass Net(nn.Module):\n    {method}\n"
    ).code
    assert "def train(" in code


def test_train_method_of_plain_class_kept() -> None:
    code = convert(
        "import torch\n\nclass Trainer:\n    def train(self, mode=True):\n        return mode\n"
    ).code
    assert "def train(self, mode=True):" in code


def test_train_taking_data_kept() -> None:
    code = convert(
        "import torch.nn as nn\n\nclass Net(nn.Module):\n    def train(self, loader):\n        return loader\n"
    ).code
    assert "def train(self, loader):" in code


def test_a_torch_layer_called_with_input_keyword_gets_it_by_position() -> None:
    code = convert(
        "import torch\nimport torch.nn as nn\n\nclass Net(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n"
        "        self.fc = nn.Linear(2, 3)\n        self.act = nn.ReLU()\n\n"
        "    def forward(self, x):\n        return self.act(input=self.fc(input=x))\n\n"
        "conv = nn.Conv1d(2, 4, 3)\ny = conv(input=torch.ones(1, 2, 5))\n\n"
        "def run(f, x):\n    return f(input=x)\n"
    ).code
    assert "return self.act(self.fc(x))" in code
    assert "y = conv(ops.ones((1, 2, 5)))" in code
    # Not known to be a torch layer: torch's keyword may be the callee's own.
    assert "return f(input=x)" in code
