"""`self.register_parameter(name, p)` becomes an attribute assignment (TM314)."""

from __future__ import annotations

import pytest
from conftest import convert_checked

HEAD = "import torch\nimport torch.nn as nn\n\n\nclass Layer(nn.Module):\n    def __init__(self, name, p):\n        super().__init__()\n"


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("self.register_parameter('bias', None)", "self.bias = None"),
        (
            "self.register_parameter('scale', nn.Parameter(torch.ones(3)))",
            "self.scale = mindspore.Parameter(ops.ones(3))",
        ),
        ("self.register_parameter(name, p)", "setattr(self, name, p)"),
        ("self.register_parameter(name=name, param=None)", "setattr(self, name, None)"),
    ],
)
def test_register_parameter_becomes_an_assignment(before: str, after: str) -> None:
    result = convert_checked(HEAD + f"        {before}\n")
    assert f"        {after}\n" in result.code
    assert "register_parameter" not in result.code and "import torch" not in result.code


def test_register_parameter_on_another_object_goes_through_the_companion() -> None:
    # Only a Module has `register_parameter`; a Cell lacks it, so the companion registers it.
    result = convert_checked(HEAD + "        p.register_parameter('bias', None)\n")
    assert "ms_aux.register_parameter(p, 'bias', None)" in result.code
    assert "TM932" in {f.rule for f in result.findings}


@pytest.mark.real
def test_converted_registration_is_a_parameter_of_the_cell(fw) -> None:
    # `fw` sets MindSpore's context; the snippets import the frameworks themselves.
    source = (
        "import torch\nimport torch.nn as nn\n\n\nclass Layer(nn.Module):\n"
        "    def __init__(self, bias):\n        super().__init__()\n"
        "        self.register_parameter('scale', nn.Parameter(torch.ones(3)))\n"
        "        if bias:\n            self.bias = nn.Parameter(torch.zeros(3))\n"
        "        else:\n            self.register_parameter('bias', None)\n"
    )
    original: dict = {}
    exec(compile(source, "original.py", "exec"), original)  # noqa: S102 - the original
    scope: dict = {}
    code = convert_checked(source).code
    exec(compile(code, "converted.py", "exec"), scope)  # noqa: S102 - the converted snippet
    for bias in (True, False):
        expected = original["Layer"](bias)
        got = scope["Layer"](bias)
        assert sorted(n for n, _ in got.parameters_and_names()) == sorted(
            n for n, _ in expected.named_parameters()
        )
        assert (got.bias is None) == (expected.bias is None)
