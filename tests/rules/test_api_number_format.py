"""TM413: a tensor formatted as a number gets `.item()`; anything not certainly a tensor is left."""

from __future__ import annotations

import pytest
from conftest import convert_checked

HEAD = "import torch\nimport torch.nn.functional as F\n\n\ndef f(x, y, model, criterion, opt, values):\n"


def _convert(body: str) -> str:
    code = convert_checked(HEAD + body).code
    return code.split("values):\n", 1)[1]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param(
            "    m = torch.mean(x)\n    print('{:.4f}'.format(m))\n",
            "print('{:.4f}'.format(m.item()))",
            id="name-bound-to-a-torch-call",
        ),
        pytest.param(
            "    print(f'{torch.sum(x):.2f} {x.sum(dim=0).max():.1f}')\n",
            "print(f'{ops.sum(x).item():.2f} {x.sum(dim=0).max().item():.1f}')",
            id="f-string-calls",
        ),
        pytest.param(
            "    loss = criterion(model(x), y)\n    loss.backward()\n    print('{:.3f}'.format(loss))\n",
            "print('{:.3f}'.format(loss.item()))",
            id="a-loss-backward-was-called-on",
        ),
        pytest.param(
            "    print('{0} {1:.2f} {k:>8}'.format(x, F.mse_loss(x, y), k=torch.sum(x)))\n",
            "print('{0} {1:.2f} {k:>8}'.format(x, ops.mse_loss(x, y).item(), k=ops.sum(x).item()))",
            id="numbered-and-keyword-fields",
        ),
        pytest.param(
            "    print(format(torch.std(x), '.2f'))\n",
            "print(format(ops.std(x, ddof=1).item(), '.2f'))",
            id="format-builtin",
        ),
        pytest.param(
            "    d = torch.dist(x, y) * 2\n    print(f'{-d:.1f}')\n",
            "print(f'{(-d).item():.1f}')",
            id="arithmetic-with-a-tensor",
        ),
    ],
)
def test_tensor_in_a_number_format_gets_item(body: str, expected: str) -> None:
    assert expected in _convert(body)


@pytest.mark.parametrize(
    "body",
    [
        pytest.param("    print('{:.4f}'.format(x))\n", id="a-parameter"),
        pytest.param("    print('{:.4f}'.format(values[0]))\n", id="an-element"),
        pytest.param(
            "    m = torch.mean(x)\n    m = m.item()\n    print('{:.4f}'.format(m))\n",
            id="rebound-to-a-number",
        ),
        pytest.param(
            "    t = 0\n    t += torch.sum(x)\n    print('{:.4f}'.format(t))\n",
            id="started-as-a-number",
        ),
        pytest.param(
            "    print('{} {!r:>5}'.format(torch.sum(x), torch.sum(x)))\n", id="no-spec"
        ),
        pytest.param("    print('%.3f' % torch.sum(x))\n", id="percent-works-as-is"),
        pytest.param(
            "    print('{:.3f}'.format(torch.sum(x).item()))\n", id="already-a-number"
        ),
        pytest.param("    print('{:.3f}'.format(x.numel()))\n", id="a-python-result"),
    ],
)
def test_values_not_certainly_tensors_are_left(body: str) -> None:
    assert ".item().item()" not in _convert(body)
    code = _convert(body)
    assert code.count(".item()") == body.count(".item()")
