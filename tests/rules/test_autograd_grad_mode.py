"""TM103: grad-mode blocks and decorators; TM916: a bare set_grad_enabled(False)."""

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
        "import torch as T\n\n"
        "def score(f, x):\n"
        "    with T.no_grad():\n"
        "        y = f(x)\n"
        "        z = y * 2\n"
        "    return z\n",
        "from mindspore import ops\n\n"
        "def score(f, x):\n"
        "    y = ops.stop_gradient(f(x))\n"
        "    z = ops.stop_gradient(y * 2)\n"
        "    return z\n",
        id="function-assignments-stop-gradient",
    ),
    pytest.param(
        "import torch\n\n"
        "def run(items, out):\n"
        "    with torch.inference_mode():\n"
        "        for item in items:\n"
        "            out.append(item)\n"
        "    return out\n",
        "\n"
        "def run(items, out):\n"
        "    for item in items:\n"
        "        out.append(item)\n"
        "    return out\n",
        id="function-statements-unwrapped",
    ),
    pytest.param(
        "import torch\n\n"
        "# switch the tape on again\n"
        "with torch.enable_grad():\n"
        "    # inside\n"
        "    a = 1\n"
        "b = 2\n",
        "\n# switch the tape on again\n# inside\na = 1\nb = 2\n",
        id="module-level-comments-kept",
    ),
    pytest.param(
        "import torch\n\n"
        "def f(path):\n"
        "    with torch.no_grad(), open(path) as handle:\n"
        "        return handle.read()\n",
        "\n"
        "def f(path):\n"
        "    with open(path) as handle:\n"
        "        return handle.read()\n",
        id="other-context-managers-stay",
    ),
    pytest.param(
        "from torch import no_grad, inference_mode\n\n"
        "@no_grad()\n"
        "def a(x):\n"
        "    return x\n\n"
        "@inference_mode()\n"
        "@staticmethod\n"
        "def b(x):\n"
        "    return x\n",
        "\ndef a(x):\n    return x\n\n@staticmethod\ndef b(x):\n    return x\n",
        id="decorators",
    ),
    pytest.param(
        "import torch\n\nwith torch.set_grad_enabled(False):\n    c = 3\n",
        "\nc = 3\n",
        id="set-grad-enabled-literal",
    ),
]


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrites(before: str, after: str) -> None:
    result = convert(before)
    assert result.code == after
    assert not [f for f in result.findings if f.severity == "error"], result.findings


def test_set_grad_enabled_expression_in_function_warns() -> None:
    source = "import torch\n\ndef f(train, g, x):\n    with torch.set_grad_enabled(train):\n        y = g(x)\n    return y\n"
    result = convert(source)
    assert "with " not in result.code
    assert "    y = g(x)\n" in result.code
    assert [f for f in result.findings if f.rule == "TM103" and f.severity == "warning"]


def test_bare_set_grad_enabled_false_is_reported() -> None:
    result = convert("import torch\ntorch.set_grad_enabled(False)\n")
    assert "torch.set_grad_enabled(False)" in result.code
    assert "TM916" in {f.rule for f in result.findings}


def test_with_as_is_left_alone() -> None:
    result = convert("import torch\n\nwith torch.no_grad() as mode:\n    a = 1\n")
    assert "no_grad" in result.code
    assert "TM103" not in result.rules_applied


def test_no_grad_value_in_differentiated_region_gets_stop_gradient() -> None:
    source = (
        "import torch\n\n"
        "x = torch.ones(3, requires_grad=True)\n"
        "with torch.no_grad():\n"
        "    s = x * 2\n"
        "y = (s * x).sum()\n"
        "y.backward()\n"
        "print(x.grad)\n"
    )
    result = convert(source)
    assert "s = ops.stop_gradient(x * 2)" in result.code
    # The module's names stay bound after the step, as torch leaves them.
    assert "(y, s), x_grad = mindspore.value_and_grad(y_fn" in result.code


@pytest.mark.parametrize(
    ("block", "answer"),
    [
        ("with torch.no_grad():", "False"),
        ("with torch.inference_mode():", "False"),
        ("with torch.set_grad_enabled(False):", "False"),
        ("with torch.enable_grad():", "True"),
    ],
)
def test_is_grad_enabled_in_an_unwrapped_block_is_the_blocks_mode(
    block: str, answer: str
) -> None:
    """The unwrapping takes the block's mode away, so the question is answered with it; outside
    the block the companion's flag answers."""
    result = convert(
        f"import torch\n{block}\n    inside = torch.is_grad_enabled()\n"
        "outside = torch.is_grad_enabled()\n"
    )
    assert f"inside = {answer}" in result.code
    assert "outside = ms_aux.is_grad_enabled()" in result.code
    assert "torch" not in result.code.replace("ms_aux", "")


def test_is_grad_enabled_in_a_block_of_a_run_time_mode_is_reported() -> None:
    result = convert(
        "import torch\n\ndef f(mode):\n    with torch.set_grad_enabled(mode):\n"
        "        return torch.is_grad_enabled()\n"
    )
    assert "return ms_aux.is_grad_enabled()" in result.code
    assert any(
        f.rule == "TM103" and "answers the mode outside the block" in f.message
        for f in result.findings
    )


def test_set_grad_enabled_statements_set_the_companions_flag() -> None:
    result = convert(
        "import torch\ntorch.autograd.grad_mode.set_grad_enabled(False)\n"
        "flag = torch.is_grad_enabled()\ntorch.set_grad_enabled(mode=True)\n"
    )
    assert "ms_aux.set_grad_enabled(False)" in result.code
    assert "flag = ms_aux.is_grad_enabled()" in result.code
    assert "ms_aux.set_grad_enabled(mode=True)" in result.code
    assert [f.rule for f in result.findings] == ["TM916"]


def test_a_block_built_as_a_value_becomes_the_companions() -> None:
    result = convert(
        "from contextlib import nullcontext\n\nimport torch\n\n"
        "def run(layers, x, warm):\n"
        "    for i, layer in enumerate(layers):\n"
        "        ctx = nullcontext() if i >= warm else torch.no_grad()\n"
        "        with ctx:\n"
        "            x = layer(x)\n"
        "    keep = [torch.enable_grad()]\n"
        "    return x, keep\n"
    )
    assert "ctx = nullcontext() if i >= warm else ms_aux.no_grad()" in result.code
    assert "keep = [ms_aux.enable_grad()]" in result.code
    assert "torch" not in result.code


def test_statements_inside_an_unwrapped_block_keep_their_lines() -> None:
    """A `with` that loses its `no_grad()` item keeps the positions of the statements it holds, so
    a finding about one of them is written above it, the first time as the second."""
    result = convert(
        "import torch\nfrom torch.export import ExportedProgram\n\n\n"
        "def export(model, cfg):\n"
        "    with (\n        torch.no_grad(),\n        patched(cfg),\n    ):\n"
        "        program: ExportedProgram = torch.export.export(model, args=())\n"
        "    return program\n"
    )
    lines = result.code.splitlines()
    statement = next(i for i, line in enumerate(lines) if "program: " in line)
    assert "TM900" in lines[statement - 1], result.code
    assert not any("TM900" in line for line in lines[: statement - 2]), result.code
    assert {f.line for f in result.findings if f.rule == "TM900"} == {10}
