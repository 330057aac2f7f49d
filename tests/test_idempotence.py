"""Converting the output again changes nothing, and every output compiles (a hypothesis property)."""

from __future__ import annotations

import textwrap

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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


@st.composite
def snippets(draw) -> str:
    imports = draw(st.lists(st.sampled_from(IMPORTS), min_size=1, max_size=4, unique=True))
    parts = ["\n".join(imports), "a = b = model = optimizer = None"]
    for n in range(draw(st.integers(0, 4))):
        template = draw(st.sampled_from(STATEMENTS))
        expression = draw(st.sampled_from(EXPRESSIONS))
        statement = template.format(e=expression)
        if draw(st.booleans()):
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
