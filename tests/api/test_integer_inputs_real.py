"""TM421: integer tensors given to functions torch computes in floats, converted and run on real
MindSpore, give torch's float32 values; float inputs and inputs of unknown dtype keep the plain call."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import convert_checked
from torch2ms.rules.api.integer_inputs import FLOAT_KERNELS, TWO_INPUTS


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            "y = torch.log(torch.tensor([4, 10]))",
            "y = ops.log(mindspore.tensor([4, 10]).float())",
        ),
        (
            "y = torch.tensor([4, 10]).log2()",
            "y = mindspore.tensor([4, 10]).float().log2()",
        ),
        ("i = torch.arange(5)\n    y = (i + 1).exp()", "y = (i + 1).float().exp()"),
        (
            "i = torch.zeros(3, dtype=torch.long)\n    y = i.sin()",
            "y = i.float().sin()",
        ),
        ("y = torch.sigmoid(x.long())", "y = ops.sigmoid(x.long().float())"),
        ("y = torch.log(input=torch.randint(1, 5, (3,)))", ".float())"),
        (
            "y = torch.atan2(torch.arange(3), x)",
            "y = ops.atan2(ops.arange(3).float(), x)",
        ),
        (
            "y = torch.tensor([1, 2]).xlogy(other=torch.tensor([3, 4]))",
            ".float().xlogy(other=mindspore.tensor([3, 4]).float())",
        ),
        # a float input, or one whose dtype the source does not show, keeps the plain call
        (
            "y = torch.log(torch.tensor([4., 10.]))",
            "y = ops.log(mindspore.tensor([4., 10.]))",
        ),
        ("y = torch.log(x)", "y = ops.log(x)"),
        ("y = torch.arange(n).exp()", "y = ops.arange(n).exp()"),
        ("i = torch.arange(5)\n    i = i / 2\n    y = i.log()", "y = i.log()"),
        (
            "y = torch.log(torch.tensor([4, 10]) * 0.5)",
            "y = ops.log(mindspore.tensor([4, 10]) * 0.5)",
        ),
        ("y = np.log(np.array([4, 10]))", "y = np.log(np.array([4, 10]))"),
    ],
)
def test_cast_only_where_the_input_is_an_integer_tensor(
    before: str, after: str
) -> None:
    source = f"import numpy as np\nimport torch\n\ndef f(x, n):\n    {before}\n    return y\n"
    result = convert_checked(source)
    assert after in result.code, result.code


def test_a_default_dtype_set_by_the_program_leaves_the_call() -> None:
    source = (
        "import torch\ntorch.set_default_dtype(torch.float64)\n"
        "y = torch.log(torch.tensor([4, 10]))\n"
    )
    assert "ops.log(mindspore.tensor([4, 10]))" in convert_checked(source).code


@pytest.mark.real
@pytest.mark.parametrize("name", sorted(FLOAT_KERNELS))
def test_integer_input_gives_torchs_float_values(name: str, fw) -> None:
    # `fw`: both frameworks importable (the snippets import them)
    other, more = (
        ("", "") if name not in TWO_INPUTS else (", x", "torch.tensor([2, 1, 0])")
    )
    source = (
        "import torch\n"
        "x = torch.tensor([1, 2, 3])\n"
        f"a = torch.{name}(x{other})\n"
        f"b = torch.tensor([1, 2, 3], dtype=torch.int32).{name}({more})\n"
    )
    expected: dict = {}
    exec(compile(source, "original.py", "exec"), expected)  # noqa: S102 - our snippet
    result = convert_checked(source)
    assert "torch" not in result.code, result.code
    got: dict = {}
    exec(compile(result.code, "converted.py", "exec"), got)  # noqa: S102 - our snippet
    for key in ("a", "b"):
        want, have = expected[key], got[key].asnumpy()
        assert str(want.dtype) == "torch." + str(have.dtype), key
        np.testing.assert_allclose(
            have, want.numpy(), rtol=1e-5, atol=1e-6, err_msg=key
        )


def test_other_defaults_set_by_the_program_change_nothing() -> None:
    source = (
        "import argparse\nimport torch\nparser = argparse.ArgumentParser()\n"
        "parser.set_defaults(lr=0.1)\ny = torch.log(torch.tensor([4, 10]))\n"
    )
    assert "ops.log(mindspore.tensor([4, 10]).float())" in convert_checked(source).code
