"""TM414: in-place random fills of a named tensor become `ops.assign` of a scaled draw."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import convert_checked

HEAD = "import math\nimport torch\n\n\ndef init(m, n, g):\n"


def _body(statement: str) -> str:
    code = convert_checked(HEAD + f"    {statement}\n").code
    return code.split("n, g):\n", 1)[1].strip()


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            "m.weight.data.normal_(0, math.sqrt(2.0 / n))",
            (
                "ops.assign(m.weight.data, (ops.randn_like(m.weight.data) * math.sqrt(2.0 / n))"
                ".astype(m.weight.data.dtype))"
            ),
        ),
        (
            "m.bias.normal_(mean=-1.5, std=0.02)",
            "ops.assign(m.bias, (ops.randn_like(m.bias) * 0.02 - 1.5).astype(m.bias.dtype))",
        ),
        (
            "m.bias.normal_()",
            "ops.assign(m.bias, (ops.randn_like(m.bias)).astype(m.bias.dtype))",
        ),
        (
            "m.weight.uniform_(-0.1, 0.1)",
            "ops.assign(m.weight, (ops.rand_like(m.weight) * (2 * 0.1) - 0.1).astype(m.weight.dtype))",
        ),
        (
            "m.weight.uniform_(2, 5)",
            "ops.assign(m.weight, (ops.rand_like(m.weight) * 3 + 2).astype(m.weight.dtype))",
        ),
        (
            "m.weight.uniform_(n - 1, n + 1)",
            (
                "ops.assign(m.weight, (ops.rand_like(m.weight) * ((n + 1) - (n - 1)) + (n - 1))"
                ".astype(m.weight.dtype))"
            ),
        ),
    ],
)
def test_fill_statement_is_assigned(before: str, after: str) -> None:
    assert _body(before) == after


@pytest.mark.parametrize(
    "statement",
    [
        "m.bias.normal_(0, 1, generator=g)",  # a generator's stream cannot be reproduced
        "y = m.bias.normal_(0, 1)",  # the result is used, not only the fill
        "m.layers[0].bias.uniform_(-1, 1)",  # the receiver is not a plain name
    ],
)
def test_other_shapes_are_left(statement: str) -> None:
    assert "ops.assign" not in _body(statement)


@pytest.mark.real
def test_converted_fills_update_parameters_with_torchs_distribution(fw) -> None:
    torch, ms = fw
    source = (
        "import torch\nimport torch.nn as nn\n\n\ndef init(m):\n"
        "    m.weight.data.normal_(0.5, 0.25)\n    m.bias.uniform_(-2, 3)\n"
    )
    code = convert_checked(source).code
    scope: dict = {}
    exec(compile(code, "converted.py", "exec"), scope)  # noqa: S102 - the converted snippet
    layer = ms.nn.Dense(300, 400)
    weight, bias = layer.weight, layer.bias
    scope["init"](layer)
    assert layer.weight is weight and layer.bias is bias  # updated in place
    expected = torch.nn.Linear(300, 400)
    with torch.no_grad():
        expected.weight.normal_(0.5, 0.25)
        expected.bias.uniform_(-2, 3)
    got_w, want_w = weight.asnumpy(), expected.weight.detach().numpy()
    got_b, want_b = bias.asnumpy(), expected.bias.detach().numpy()
    assert got_w.dtype == np.float32 and got_w.shape == want_w.shape
    np.testing.assert_allclose(
        [got_w.mean(), got_w.std()], [want_w.mean(), want_w.std()], atol=0.01
    )
    assert -2 <= got_b.min() and got_b.max() < 3
    np.testing.assert_allclose(got_b.mean(), want_b.mean(), atol=0.3)
