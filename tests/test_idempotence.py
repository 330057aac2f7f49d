"""Converting the output again changes nothing, and every output compiles (a hypothesis property)."""

from __future__ import annotations

import re
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from torch2ms.migrator import convert as convert_module
from torch2ms.migrator import engine, opaque
from torch2ms.migrator.context import Options
from torch2ms.migrator.convert import convert_source

IMPORTS = [
    "import torch",
    "import torch as T",
    "import torch.nn as nn",
    "from torch import nn",
    "from torch import nn, optim",
    "import torch.nn.functional as F",
    "from torch.nn import functional as F",
    "from torch.autograd import Variable",
    "import torch.optim as optim",
    "import numpy as np",
    "import os",
]

# Statements over the names the imports above may bind; some refer to names a snippet may not
# import, which only makes them plain (non-torch) names.
EXPRESSIONS = [
    "torch.zeros(3, 4)",
    "torch.ones(2, dtype=torch.float32)",
    "torch.cat([a, b], dim=0)",
    "T.randn(2, 3)",
    "F.relu(a)",
    "F.softmax(a, dim=-1)",
    "nn.Linear(4, 2)",
    "nn.Sequential(nn.Linear(4, 4), nn.ReLU())",
    "a.view(-1, 4)",
    "a.sum(dim=1).mean()",
    "a.detach()",
    "a.cuda()",
    "torch.cuda.is_available()",
    "np.zeros(3)",
    "Variable(a)",
    "optim.SGD(model.parameters(), lr=0.1)",
    "a + b * 2",
]

STATEMENTS = [
    "x = {e}",
    "y = [{e} for _ in range(2)]",
    "print({e})",
    "with torch.no_grad():\n    z = {e}",
    "for i in range(3):\n    a = {e}",
    "if a is not None:\n    b = {e}\nelse:\n    b = None",
    "def f(a, b):\n    return {e}",
    "loss = {e}\nloss.backward()",
    "optimizer.zero_grad()\nloss = {e}\nloss.backward()\noptimizer.step()",
    "try:\n    c = {e}\nexcept Exception:\n    c = None",
    "x = {e}  # keep this comment",
]

CLASS = """class Net{n}(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, a):
{body}
        return a
"""


IMPORT_BINDS = {
    "import torch": {"torch"},
    "import torch as T": {"T"},
    "import torch.nn as nn": {"nn"},
    "from torch import nn": {"nn"},
    "from torch import nn, optim": {"nn", "optim"},
    "import torch.nn.functional as F": {"F"},
    "from torch.nn import functional as F": {"F"},
    "from torch.autograd import Variable": {"Variable"},
    "import torch.optim as optim": {"optim"},
    "import numpy as np": {"np"},
    "import os": {"os"},
}
ROOTS = re.compile(r"(?<![.\w])(torch|T|F|nn|np|Variable|optim|os)\b")


def _needs(text: str) -> set[str]:
    return set(ROOTS.findall(text))


@st.composite
def snippets(draw) -> str:
    """Programs whose names are all bound: imports with aliases, then calls, loops, classes."""
    imports = draw(
        st.lists(st.sampled_from(IMPORTS), min_size=1, max_size=4, unique=True)
    )
    bound = set().union(*(IMPORT_BINDS[i] for i in imports))
    parts = ["\n".join(imports), "a = b = model = optimizer = None"]
    templates = [t for t in STATEMENTS if _needs(t) <= bound]
    expressions = [e for e in EXPRESSIONS if _needs(e) <= bound]
    for n in range(draw(st.integers(0, 4))):
        statement = draw(st.sampled_from(templates)).format(
            e=draw(st.sampled_from(expressions))
        )
        if "nn" in bound and draw(st.booleans()):
            parts.append(CLASS.format(n=n, body=textwrap.indent(statement, " " * 8)))
        else:
            parts.append(statement)
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    return newline.join("\n\n".join(parts).split("\n")) + newline


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(snippets(), st.sampled_from(["functional", "cell"]))
def test_converting_twice_changes_nothing(source: str, style: str) -> None:
    compile(source, "snippet.py", "exec")
    options = Options(style=style)
    first = convert_source(source, "snippet.py", options)
    assert not first.failed
    compile(first.code, "snippet.py", "exec")
    second = convert_source(first.code, "snippet.py", options)
    assert second.code == first.code, (source, first.code, second.code)
    if "\r\n" in source:
        assert first.code.count("\n") == first.code.count("\r\n")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(snippets())
def test_unchanged_statements_are_copied_exactly(source: str) -> None:
    """Statements no rule replaced are written from the source text; that equals LibCST's codegen."""
    spliced, generated = spliced_and_generated(source, Options())
    assert spliced == generated


CASES = {
    "plain": "import torch\nimport torch.nn as nn\n\nx = 1\ny = torch.zeros(3)\n\n\nclass Net(nn.Module):\n    a = 1\n\n    def forward(self, x):\n        z = x  # comment\n        return x\n",
    "no_final_newline": "import torch\nx = 1\ny = torch.zeros(3)\nz = 2",
    "unchanged_last_line_without_newline": "import torch.nn as nn\nlayer = nn.ReLU()\nz = 2",
    "crlf": "import torch.nn as nn\r\n\r\nx = [1,\r\n     2]\r\nlayer = nn.ReLU()\r\n",
    "tabs": "import torch.nn as nn\nif True:\n\tx = 1\n\tlayer = nn.ReLU()\n\tif x:\n\t\ty = (1 +\n\t\t     2)\n",
    "two_space_blocks": "import torch.nn as nn\nclass A:\n  def f(self):\n    x = 1\n    return nn.ReLU()\n",
    "backslash": "import torch.nn as nn\nx = 1 + \\\n    2\nlayer = nn.ReLU()\n",
    "semicolons": "import torch.nn as nn\nx = 1; y = 2\nlayer = nn.ReLU(); z = 3\n",
    "comments_and_blank_lines": "# header\n\nimport torch.nn as nn\n\n# lead\n\n\nx = 1  # trailing\n    # odd indent comment\nlayer = nn.ReLU()\n# footer\n",
    "form_feed": "import torch.nn as nn\n\x0c\nx = 1\nlayer = nn.ReLU()\n",
    "nested_blocks": "import torch\nimport torch.nn as nn\n\nclass Net(nn.Module):\n    def forward(self, x):\n        for i in range(3):\n            if i:\n                x = x + 1\n            else:\n                x = torch.relu(x)\n        try:\n            y = 1\n        except Exception:\n            y = 2\n        finally:\n            z = 3\n        return x\n",
    "training_loop": "import torch\n\nmodel = torch.nn.Linear(2, 1)\noptimizer = torch.optim.SGD(model.parameters(), lr=0.1)\nfor data, target in []:\n    optimizer.zero_grad()\n    output = model(data)\n    loss = ((output - target) ** 2).mean()\n    loss.backward()\n    optimizer.step()\n",
}


def spliced_and_generated(source: str, options: Options) -> tuple[str, str]:
    """The code written with unchanged statements copied from the source, and LibCST's codegen
    of the same module, from a full parse (no opaque statements, whose placeholders only the
    splice writes back)."""
    outputs: list[tuple[str, str]] = []
    real = engine.module_code

    def compare(module, parsed, text, lines, placeholders=frozenset()):
        assert not placeholders
        outputs.append((real(module, parsed, text, lines), module.code))
        return outputs[-1][0]

    convert_module.module_code = compare
    min_lines, opaque.MIN_LINES = opaque.MIN_LINES, 10**9
    try:
        convert_module.convert_source(source, "case.py", options)
    finally:
        convert_module.module_code = real
        opaque.MIN_LINES = min_lines
    if not outputs:
        return source, source
    return outputs[0]


@pytest.mark.parametrize("name", sorted(CASES))
def test_spliced_code_equals_codegen(name: str) -> None:
    spliced, generated = spliced_and_generated(CASES[name], Options())
    assert spliced == generated


# Shapes from real model code where a second conversion once differed from the first.
ONCE_DIFFERENT = {
    "in_place_chain_on_a_temporary": (
        "import torch\n\n"
        "def step(exp_avg_sq, bias_correction, eps):\n"
        "    denom = exp_avg_sq.div(bias_correction).sqrt_().add_(eps)\n"
        "    return denom\n"
    ),
    "squeeze_on_a_layer_output": (
        "import torch\nfrom torch import nn\n\n\n"
        "class Head(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.aggregate = nn.Conv1d(3, 1, 1)\n"
        "        self.generator = torch.Generator()\n\n"
        "    def forward(self, x):\n"
        "        return self.aggregate(x).squeeze(dim=1)\n"
    ),
    "squeeze_on_a_converted_call": (
        "import torch\nimport torch.nn.functional as F\n\n"
        "def resize(bias, size):\n"
        "    g = torch.Generator()\n"
        "    return F.interpolate(bias.unsqueeze(0), size=size, mode='bilinear').squeeze(0)\n"
    ),
    "leftover_on_a_line_with_a_warning": (
        "import torch\nfrom torch import nn\n\n\n"
        "class Ema(nn.Module):\n"
        "    def __init__(self, module):\n"
        "        super().__init__()\n"
        "        self.module = module\n"
        "        self.gen = torch.Generator(device=next(self.module.parameters()).device)\n"
    ),
    "companion_call_in_a_loss_at_module_level": (
        "import torch\n\na = b = model = optimizer = None\n\noptimizer.zero_grad()\n"
        "loss = torch.cuda.is_available()\nloss.backward()\noptimizer.step()\n"
    ),
    "state_dict_of_an_unknown_receiver": (
        "import torch\n\n\nclass Ema:\n    def update(self, model):\n"
        "        for k, v in self.ema.state_dict().items():\n            print(k, v)\n"
    ),
    "else_branch_of_an_answered_check_with_a_comment": (
        "import torch\n\n\ndef update(ema, model, weight, same):\n"
        "    if same and hasattr(torch, '_foreach_lerp_'):\n"
        "        torch._foreach_lerp_(ema, model, weight=weight)\n"
        "    else:\n"
        "        # lerp_ needs matching dtypes\n"
        "        torch._foreach_mul_(ema, scalar=1. - weight)\n"
        "        torch._foreach_add_(ema, model, alpha=weight)\n"
    ),
    # The step reads `loss = a` once Variable is gone: the first conversion reports what the
    # second finds (no model called), not that the step changed.
    "step_whose_forward_vanishes_with_variable": (
        "import torch\nfrom torch import nn\nfrom torch.autograd import Variable\n\n"
        "a = b = model = optimizer = None\nx = torch.zeros(3, 4)\n"
        "for i in range(3):\n    a = nn.Linear(4, 2)\n"
        "optimizer.zero_grad()\nloss = Variable(a)\nloss.backward()\noptimizer.step()\n"
    ),
}


@pytest.mark.parametrize("name", sorted(ONCE_DIFFERENT))
def test_real_shapes_convert_the_same_twice(name: str) -> None:
    first = convert_source(ONCE_DIFFERENT[name], "case.py", Options())
    second = convert_source(first.code, "case.py", Options())
    assert second.code == first.code
    # Whatever stays on torch is reported in the first conversion already.
    assert [f.rule for f in second.findings if f.rule == "TM900"] == [
        f.rule for f in first.findings if f.rule == "TM900"
    ]


UNWRAPPED_BLOCKS = {
    "no_grad": (
        (
            "import torch\n\n"
            "def init(layers):\n"
            "    with torch.no_grad():\n"
            "        layers[0].bias.zero_()\n"
            "        layers[1].bias.zero_()\n"
        ),
        ("layers[0].bias.zero_()", "layers[1].bias.zero_()"),
        "TM941",
    ),
    "cuda_autocast_in_a_training_step": (
        (
            "import torch\nimport torch.nn.functional as F\n\n"
            "def train(model, loader, optimizer):\n"
            "    for data, target in loader:\n"
            "        optimizer.zero_grad()\n"
            "        with torch.cuda.amp.autocast():\n"
            "            out = model(data).normal_()\n"
            "            loss = F.mse_loss(out.uniform_(), target)\n"
            "        loss.backward()\n"
            "        optimizer.step()\n"
        ),
        ("out = model(data).normal_()", "loss = ops.mse_loss(out.uniform_(), target)"),
        "TM942",
    ),
}


@pytest.mark.parametrize("name", sorted(UNWRAPPED_BLOCKS))
def test_each_statement_of_an_unwrapped_block_keeps_its_own_finding(name: str) -> None:
    source, statements, rule = UNWRAPPED_BLOCKS[name]
    first = convert_source(source, "case.py", Options()).code
    assert convert_source(first, "case.py", Options()).code == first
    lines = first.splitlines()
    for target in statements:
        at = next(i for i, line in enumerate(lines) if line.strip() == target)
        above = []
        while lines[at - 1 - len(above)].strip().startswith("# torch2ms:"):
            above.append(lines[at - 1 - len(above)])
        assert any(rule in line for line in above), lines


def test_a_converted_squeeze_is_not_reported_as_a_leftover() -> None:
    source = "import torch\n\ndef f(x):\n    return x.squeeze(dim=0)\n"
    result = convert_source(source, "case.py", Options())
    assert "x.squeeze(axis=0)" in result.code
    assert "import torch" not in result.code
    assert not [f for f in result.findings if f.rule == "TM900"]


def test_a_torchvision_name_only_in_annotations_loses_its_import_at_once() -> None:
    # The annotation becomes text, so nothing reads the name: the import goes in the first
    # conversion, not the second.
    source = (
        "import torch\nfrom torchvision.transforms.v2 import functional as tvF\n\n\n"
        "def resize(images: torch.Tensor, resample: tvF.InterpolationMode | int) -> "
        "torch.Tensor:\n    return images\n"
    )
    first = convert_source(source, "case.py", Options())
    assert "import torchvision" not in first.code
    assert "from torchvision" not in first.code
    assert '"torchvision.transforms.v2.functional.InterpolationMode | int"' in first.code
    assert convert_source(first.code, "case.py", Options()).code == first.code
