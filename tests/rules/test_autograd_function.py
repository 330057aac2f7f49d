"""TM107: custom torch.autograd.Function → nn.Cell with construct and bprop; TM915 reports."""

from __future__ import annotations

import pytest
from torch2ms.migrator.convert import convert_source


def convert(source: str):
    result = convert_source(source, "case.py")
    assert convert_source(result.code, "case.py").code == result.code, "not idempotent"
    compile(result.code, "case.py", "exec")
    return result


def test_output_saved_and_apply_alias() -> None:
    source = (
        "from torch.autograd import Function\n\n"
        "class Exp(Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        result = x.exp()\n"
        "        ctx.save_for_backward(result)\n"
        "        return result\n\n"
        "    @staticmethod\n"
        "    def backward(ctx, grad_output):\n"
        "        result, = ctx.saved_tensors\n"
        "        return grad_output * result\n\n"
        "exp = Exp.apply\n"
    )
    after = (
        "from mindspore import nn\n\n"
        "class Exp(nn.Cell):\n"
        "    def construct(self, x):\n"
        "        result = x.exp()\n"
        "        return result\n\n"
        "    def bprop(self, x, out, grad_output):\n"
        "        result, = (out,)\n"
        "        return (grad_output * result,)\n\n"
        "exp = Exp()\n"
    )
    assert convert(source).code == after


def test_intermediate_saved_is_recomputed_and_several_outputs() -> None:
    source = (
        "import torch\n\n"
        "class Pair(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x, k):\n"
        "        y = x * k\n"
        "        ctx.save_for_backward(y)\n"
        "        ctx.k = k\n"
        "        return y, x\n\n"
        "    @staticmethod\n"
        "    def backward(ctx, g1, g2):\n"
        "        (y,) = ctx.saved_tensors\n"
        "        return g1 * ctx.k + g2 + 0 * y, None\n"
    )
    result = convert(source)
    assert (
        "def bprop(self, x, k, out, dout):\n        g1, g2 = dout\n        y = x * k\n"
        in result.code
    )
    assert "return g1 * k + g2 + 0 * y, None" in result.code
    assert "ctx" not in result.code


@pytest.mark.parametrize(
    "feature",
    [
        "ctx.mark_dirty(x)",
        "ctx.mark_non_differentiable(x)",
        "ctx.set_materialize_grads(False)",
    ],
)
def test_unmappable_ctx_features_are_reported(feature: str) -> None:
    source = (
        "import torch\n\n"
        "class F(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        f"        {feature}\n"
        "        return x * 2\n\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        return g * 2\n"
    )
    result = convert(source)
    assert "TM915" in {f.rule for f in result.findings}
    assert "def forward(ctx, x)" in result.code


def test_a_call_of_a_function_left_unconverted_is_reported_at_its_line() -> None:
    """The class keeps torch's form and its `.apply` raises when the program runs: the call's
    line says so, with the reason the class gave."""
    source = (
        "import torch\n\n"
        "class F(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        ctx.mark_dirty(x)\n"
        "        return x\n\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        return g\n\n"
        "y = F.apply(torch.ones(2))\n"
    )
    result = convert(source)
    lines = {f.line: f.message for f in result.findings if f.rule == "TM915"}
    assert sorted(lines) == [3, 13]
    assert "`F.apply(...)`" in lines[13] and "ctx.mark_dirty" in lines[13]


def test_needs_input_grad_is_reported() -> None:
    source = (
        "import torch\n\n"
        "class F(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        return x * 2\n\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        return g * 2 if ctx.needs_input_grad[0] else None\n"
    )
    result = convert(source)
    assert "TM915" in {f.rule for f in result.findings}


def test_once_differentiable_is_dropped_with_a_warning() -> None:
    source = (
        "import torch\n"
        "from torch.autograd.function import once_differentiable\n\n"
        "class F(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        return x * 2\n\n"
        "    @staticmethod\n"
        "    @once_differentiable\n"
        "    def backward(ctx, g):\n"
        "        return g * 2\n"
    )
    result = convert(source)
    assert "def bprop(self, x, out, g)" in result.code
    assert [f for f in result.findings if f.rule == "TM915" and f.severity == "warning"]


def test_plain_classes_are_left_alone() -> None:
    source = "import torch\n\nclass Function:\n    def forward(self, x):\n        return torch.relu(x)\n"
    result = convert(source)
    assert "class Function:" in result.code and "def forward(self, x)" in result.code


def test_onnx_symbolic_is_dropped_with_a_warning() -> None:
    source = (
        "import torch\n\n"
        "class SwishFn(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def symbolic(g, x):\n"
        '        return g.op("Mul", x, g.op("Sigmoid", x))\n\n'
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        ctx.save_for_backward(x)\n"
        "        return x * torch.sigmoid(x)\n\n"
        "    @staticmethod\n"
        "    def backward(ctx, grad_output):\n"
        "        x = ctx.saved_tensors[0]\n"
        "        s = torch.sigmoid(x)\n"
        "        return grad_output * (s * (1 + x * (1 - s)))\n"
    )
    result = convert_source(source)
    assert "symbolic" not in result.code.replace("`symbolic` dropped", "")
    assert "class SwishFn(nn.Cell):" in result.code
    assert "def bprop(self, x, out, grad_output):" in result.code
    assert [(f.rule, f.severity) for f in result.findings] == [("TM915", "warning")]
    assert "import torch" not in result.code


def test_inputs_left_at_their_defaults_get_none_gradients() -> None:
    """torch takes one gradient per input given to `apply`; MindSpore's bprop returns one per
    construct parameter, so a parameter left at its default gets None."""
    result = convert_source(
        "import torch\n\nclass Square(torch.autograd.Function):\n"
        "    @staticmethod\n    def forward(ctx, x, func=torch.square):\n"
        "        return func(x)\n\n"
        "    @staticmethod\n    def backward(ctx, dy):\n        return dy + 1\n\n"
        "x = torch.ones(2, requires_grad=True)\nSquare.apply(x).sum().backward()\n",
        "case.py",
    )
    assert "return (dy + 1, None)" in result.code
