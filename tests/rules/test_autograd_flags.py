"""TM104 detach, TM105 requires_grad/Variable, TM106 .data writes."""

from __future__ import annotations

import pytest
from torch2ms.migrator.convert import convert_source


def convert(source: str):
    result = convert_source(source, "case.py")
    assert convert_source(result.code, "case.py").code == result.code, "not idempotent"
    compile(result.code, "case.py", "exec")
    return result


REWRITES = [
    pytest.param(
        "import torch\n\ndef f(x):\n    return x.detach() * 2\n",
        "from mindspore import ops\n\ndef f(x):\n    return ops.stop_gradient(x) * 2\n",
        id="detach",
    ),
    pytest.param(
        "import torch\n\ndef f(x):\n    return (x + 1).detach().sum()\n",
        "from mindspore import ops\n\ndef f(x):\n    return ops.stop_gradient(x + 1).sum()\n",
        id="detach-chained",
    ),
    pytest.param(
        "from torch.autograd import Variable\n\ndef f(t):\n    return Variable(t, volatile=True)\n",
        "\ndef f(t):\n    return t\n",
        id="variable",
    ),
    pytest.param(
        "import torch\n\ndef f(t):\n    return t.requires_grad_(True)\n",
        "\ndef f(t):\n    return t\n",
        id="requires-grad-method",
    ),
    pytest.param(
        "import torch\n\ndef init(net, w, b):\n    net.fc.weight.data = w\n    net.fc.bias.data = b\n",
        "\ndef init(net, w, b):\n    net.fc.weight.set_data(w)\n    net.fc.bias.set_data(b)\n",
        id="parameter-data-write",
    ),
]


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrites(before: str, after: str) -> None:
    result = convert(before)
    assert result.code == after


NOT_REWRITTEN = [
    pytest.param(
        "import torch\n\ndef f(t, v):\n    t.data = v\n    return t.data\n",
        "t.data = v",
        id="tensor-data-write-stays",
    ),
    pytest.param(
        "import torch\n\ndef f(t):\n    return t.detach(1)\n",
        "t.detach(1)",
        id="detach-with-arguments",
    ),
    pytest.param(
        "import torch\n\ndef f(p):\n    p.requires_grad = False\n    return p\n",
        "p.requires_grad = False",
        id="freezing-a-parameter",
    ),
    pytest.param(
        "import torch\n\ndef f(t):\n    return t.requires_grad_(False)\n",
        # the companion clears a Parameter's flag and returns a tensor as it is
        "ms_aux.requires_grad_(t, False)",
        id="requires-grad-off",
    ),
    pytest.param(
        "import torch\n\ndef f(m):\n    m.head.requires_grad_(False)\n",
        "ms_aux.requires_grad_(m.head, False)",  # freezing is carried out, never dropped
        id="requires-grad-off-on-an-attribute",
    ),
]


@pytest.mark.parametrize(("before", "kept"), NOT_REWRITTEN)
def test_not_rewritten(before: str, kept: str) -> None:
    result = convert(before)
    assert kept in result.code


def test_requires_grad_keyword_dropped_from_factories() -> None:
    result = convert("import torch\n\nx = torch.tensor(1.0, requires_grad=True)\n")
    assert "requires_grad" not in result.code
    assert "TM105" in result.rules_applied


@pytest.mark.parametrize(
    "call",
    [
        "Variable(data=x, requires_grad=False)",
        "Variable(x, False)",
        "Variable(requires_grad=True, data=x)",
        "Variable(x, True, False)",
    ],
)
def test_a_variable_is_its_data_whatever_the_literal_flags(call: str) -> None:
    result = convert_source(
        f"import torch\nfrom torch.autograd import Variable\nx = torch.ones(2)\ny = {call}\n",
        "case.py",
    )
    assert "y = x\n" in result.code
    assert "torch" not in result.code.replace("mindspore", "")


def test_a_variable_with_a_flag_known_at_run_time_stays_reported() -> None:
    result = convert_source(
        "import torch\nx = torch.ones(2)\ny = torch.autograd.Variable(x, flag)\n",
        "case.py",
    )
    assert "torch.autograd.Variable(x, flag)" in result.code


FLAG_READS = [
    pytest.param("x.T.requires_grad", "False", id="view-of-a-plain-tensor"),
    pytest.param("w.mT.requires_grad", "True", id="view-of-a-leaf"),
    pytest.param("w.real.T.requires_grad", "True", id="view-of-a-view"),
    pytest.param("w.data.requires_grad", "False", id="data"),
    pytest.param("w.detach().requires_grad", "False", id="detached"),
    pytest.param("q.data.requires_grad", "False", id="data-of-an-unknown-tensor"),
]


@pytest.mark.parametrize(("read", "flag"), FLAG_READS)
def test_requires_grad_of_an_expression_is_torchs_flag(read: str, flag: str) -> None:
    result = convert(
        "import torch\nx = torch.ones(2)\nw = torch.ones(2, requires_grad=True)\n"
        f"r = {read}\n"
    )
    assert f"r = {flag}" in result.code.splitlines()


def test_requires_grad_of_an_unknown_expression_stays() -> None:
    # `f(w)` may or may not record the tape: nothing is certain, the read stays as written.
    result = convert(
        "import torch\nw = torch.ones(2, requires_grad=True)\nr = f(w).T.requires_grad\n"
    )
    assert "r = f(w).T.requires_grad" in result.code


def test_a_flag_read_alone_is_answered_without_gradient_reports() -> None:
    # A module with no gradient: a Parameter's flag in a branch runs on MindSpore as it is.
    result = convert(
        "import torch\n\ndef frozen(model):\n    for p in model.parameters():\n"
        "        if not p.requires_grad:\n            yield p\n"
    )
    assert "if not p.requires_grad:" in result.code
    assert "TM912" not in {f.rule for f in result.findings}


def test_an_objects_own_attribute_named_like_a_view_stays() -> None:
    result = convert(
        "import torch\n\nclass Grid:\n    def area(self):\n"
        "        return self.H * self.W, torch.ones(2, 2).mT\n"
    )
    assert "self.H * self.W" in result.code
    assert "ms_aux.tensor_mT(" in result.code
