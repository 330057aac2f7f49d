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


def _convert_module(source: str) -> str:
    return convert_checked(source).code


def test_a_tensor_followed_into_a_helper_and_its_loop() -> None:
    code = _convert_module(
        "import torch\n\n"
        "def describe(W, b):\n"
        "    text = ''\n"
        "    for i, w in enumerate(W):\n"
        "        text += '{:+.2f} x^{} '.format(w, i + 1)\n"
        "    return text + '{:+.2f}'.format(b[0])\n\n"
        "fc = torch.nn.Linear(4, 1)\n"
        "W = torch.randn(4, 1)\n"
        "print(describe(fc.weight.view(-1), fc.bias))\n"
        "print(describe(W.view(-1), torch.randn(1)))\n"
    )
    assert "'{:+.2f} x^{} '.format(w.item(), i + 1)" in code
    assert "'{:+.2f}'.format(b[0].item())" in code
    assert "ms_aux" not in code


def test_a_helper_also_called_with_numbers_gets_the_companion_scalar() -> None:
    code = _convert_module(
        "import torch\n\n"
        "def show(value):\n"
        "    print(f'{value:.3f}')\n\n"
        "show(torch.randn(()))\n"
        "show(0.5)\n"
    )
    assert "print(f'{ms_aux.scalar(value):.3f}')" in code
    assert "import ms_aux" in code


def test_a_name_a_tensor_is_added_to_gets_the_companion_scalar() -> None:
    code = _convert(
        "    t = 0\n    for v in values:\n        t += torch.sum(v)\n    print('{:.4f}'.format(t))\n"
    )
    assert "'{:.4f}'.format(ms_aux.scalar(t))" in code


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(
            "import torch\n\ndef show(value):\n    print(f'{value:.3f}')\n\n"
            "show(torch.randn(()))\ncallbacks = [show]\n",
            id="a-helper-passed-on-as-a-value",
        ),
        pytest.param(
            "import torch\n\ndef show(value):\n    print(f'{value:.3f}')\n\nshow(1.5)\n",
            id="a-helper-called-with-numbers-only",
        ),
        pytest.param(
            "import torch\n\ndef show(loss):\n    loss = loss.item()\n    print(f'{loss:.3f}')\n\n"
            "show(torch.randn(()))\n",
            id="turned-into-a-number-first",
        ),
    ],
)
def test_values_no_call_shows_to_be_tensors_are_left(source: str) -> None:
    code = _convert_module(source)
    assert "ms_aux" not in code and ":.3f}')" in code
    assert code.count(".item()") == source.count(".item()")
