"""An in-place method on the result of a call of the program's own (`self.act_fn(x).mul_(g)`)
becomes the out-of-place method, with a TM943 warning; views, getters, in-place calls and bare
statements keep their finding."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import convert_checked

HEAD = "import torch\n\n\ndef f(x, act, self):\n"


def _converted(statement: str):
    return convert_checked(HEAD + f"    {statement}\n    return y\n")


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            "y = self.act_fn(x, inplace=self.inplace).mul_(self.gamma)",
            "y = self.act_fn(x, inplace=self.inplace).mul(self.gamma)",
        ),
        ("y = act(x).add_(1.0)", "y = act(x).add(1.0)"),
        ("y = self.proj(x).div_(2)", "y = self.proj(x).div(2)"),
        # an in-place method returns its receiver: the chain is one temporary
        (
            "y = norm(x, p=2).clamp_(min=1e-6).mul_(2.0)",
            "y = norm(x, p=2).clamp(min=1e-6).mul(2.0)",
        ),
    ],
)
def test_the_result_of_a_call_is_updated_out_of_place(before: str, after: str) -> None:
    result = _converted(before)
    assert f"    {after}\n" in result.code
    assert "import torch" not in result.code
    assert {f.rule for f in result.findings} == {"TM943"}
    assert result.findings[0].severity == "warning"


@pytest.mark.parametrize(
    "statement",
    [
        "y = x.view(-1).mul_(2)",  # a view shares its base's storage
        "y = act(x, inplace=True).mul_(2)",  # returns its input
        "y = self.get_buffer('w').mul_(2)",  # a tensor the module holds
        "y = getattr(self, 'w').mul_(2)",  # the attribute itself
        "y = x.add_(1).mul_(2)",  # x itself (its update is rewritten on its own)
        "y = s._values().pow_(2)",  # the values a sparse tensor holds
        "act(x).mul_(2); y = x",  # only what the result shares could see the update
    ],
)
def test_results_that_may_be_held_elsewhere_are_not_rewritten(statement: str) -> None:
    result = _converted(statement)
    assert "TM943" not in {f.rule for f in result.findings}


@pytest.mark.real
def test_converted_update_of_a_call_result_computes_torchs_value(fw) -> None:
    torch, ms = fw
    source = (
        "import torch\nimport torch.nn.functional as F\n\n\n"
        "def scaled(x, act, gamma):\n    return act(x, inplace=False).mul_(gamma)\n"
    )
    code = convert_checked(source).code
    scope: dict = {}
    exec(compile(code, "converted.py", "exec"), scope)  # noqa: S102 - the converted snippet
    data = np.random.RandomState(0).standard_normal((3, 5)).astype(np.float32)
    original: dict = {}
    exec(compile(source, "original.py", "exec"), original)  # noqa: S102 - the original
    expected = original["scaled"](
        torch.tensor(data), torch.nn.functional.silu, 1.7
    ).numpy()
    got = scope["scaled"](
        ms.Tensor(data), lambda x, inplace=False: ms.ops.silu(x), 1.7
    ).asnumpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
