"""Layer classes as parameter defaults (TM401 with `functools.partial`), `torch.jit.annotations`
(TM405), `torch.Size` as a type (TM406), `torch.from_numpy` and out-of-place `torch._foreach_*`
(TM407): the rewrites, what is left alone, and real-framework checks of what they compute."""

from __future__ import annotations

import numpy as np
import pytest
from torch2ms.migrator.convert import convert_source

HEAD = "import torch\nimport torch.nn as nn\n\n\n"


def convert(source: str, target: str = "cpu"):
    from torch2ms.migrator.context import Options

    result = convert_source(source, "case.py", Options(target=target))
    compile(result.code, "case.py", "exec")
    again = convert_source(result.code, "case.py", Options(target=target))
    assert again.code == result.code, "not idempotent"
    return result


REWRITES = [
    # GELU as a default that is only called with no arguments: exact GELU through partial.
    (
        HEAD + "def block(dim, act_layer=nn.GELU):\n    return act_layer()\n",
        (
            "import functools\nfrom mindspore import nn\n\n\n"
            "def block(dim, act_layer=functools.partial(nn.GELU, approximate=False)):\n"
            "    return act_layer()\n"
        ),
    ),
    # An existing `import functools` is used as it is.
    (
        (
            "import functools\nimport torch.nn as nn\n\n\n"
            "class Block(nn.Module):\n"
            "    def __init__(self, act_layer=nn.GELU):\n"
            "        super().__init__()\n        self.act = act_layer()\n"
        ),
        (
            "import functools\nfrom mindspore import nn\n\n\n"
            "class Block(nn.Cell):\n"
            "    def __init__(self, act_layer=functools.partial(nn.GELU, approximate=False)):\n"
            "        super().__init__()\n        self.act = act_layer()\n"
        ),
    ),
    (
        (
            "from torch.jit.annotations import List, Optional\n\n\n"
            "def f(xs: List[int], y: Optional[int] = None) -> List[int]:\n    return xs\n"
        ),
        (
            "from typing import List, Optional\n\n\n"
            "def f(xs: List[int], y: Optional[int] = None) -> List[int]:\n    return xs\n"
        ),
    ),
    (
        (
            "import math\n\nimport torch\n\n\ndef f(shape: torch.Size) -> bool:\n"
            "    return len(shape) == 2\n"
        ),
        ("import math\n\n\ndef f(shape: tuple) -> bool:\n    return len(shape) == 2\n"),
    ),
    (
        "import numpy as np\nimport torch\n\nt = torch.from_numpy(np.ones(3))\n",
        "import numpy as np\nimport mindspore\n\nt = mindspore.from_numpy(np.ones(3))\n",
    ),
    (
        (
            "import torch\n\nr = torch._foreach_sqrt(a if c else b)\n"
            "n = torch._foreach_neg(xs)\ns = torch._foreach_mul(xs, 1 - beta)\n"
            "d = torch._foreach_div(xs, [v for v in ys])\n"
        ),
        (
            "from mindspore import ops\n\nr = [ops.sqrt(_t) for _t in (a if c else b)]\n"
            "n = [ops.neg(_t) for _t in xs]\ns = [ops.mul(_t, 1 - beta) for _t in xs]\n"
            "d = [ops.div(_t, _t1) for _t, _t1 in zip(xs, [v for v in ys])]\n"
        ),
    ),
]


@pytest.mark.parametrize("before, after", REWRITES)
def test_rewrites(before: str, after: str) -> None:
    assert convert(before).code == after


def test_list_from_foreach_is_zipped() -> None:
    code = convert(
        "import torch\n\n\ndef step(exp_avgs, grads, t):\n"
        "    masks = torch._foreach_mul(exp_avgs, grads)\n"
        "    return torch._foreach_mul(exp_avgs, masks), t\n"
    ).code
    assert "[ops.mul(_t, _t1) for _t, _t1 in zip(exp_avgs, masks)], t" in code
    # `grads` may be a tensor or a scalar: the companion op takes either
    assert "masks = ms_aux.foreach_mul(exp_avgs, grads)" in code
    # Loop names avoid every name the module uses.
    code = convert("import torch\n\ny = torch._foreach_mul(xs, -_t)\n").code
    assert "y = [ops.mul(_t1, -_t) for _t1 in xs]" in code


def test_inplace_becomes_a_loop_of_assign() -> None:
    code = convert(
        "import torch\n\n\ndef step(params, exp_avgs, lr):\n"
        "    # decay\n"
        "    torch._foreach_mul_(exp_avgs, 0.9)  # m\n"
        "    torch._foreach_add_(params, torch._foreach_mul(exp_avgs, -lr))\n"
    ).code
    assert code == (
        "from mindspore import ops\n\n\ndef step(params, exp_avgs, lr):\n"
        "    # decay\n"
        "    for _t in exp_avgs:\n        ops.assign(_t, ops.mul(_t, 0.9))  # m\n"
        "    for _t1, _t2 in zip(params, [ops.mul(_t, -lr) for _t in exp_avgs]):\n"
        "        ops.assign(_t1, ops.add(_t1, _t2))\n"
    )
    # An operand that is not a constant is evaluated once, before the tensors change, as in torch.
    code = convert(
        "import torch\n\n\ndef step(xs, lr):\n    torch._foreach_mul_(xs, -lr)\n"
    ).code
    assert (
        "    _s = -lr\n    for _t in xs:\n        ops.assign(_t, ops.mul(_t, _s))\n"
        in code
    )


LEFT_ALONE = [
    # A class without a companion class, given torch's arguments, or passed on to code the converter
    # cannot see (GELU and the other classes with one become `ms_aux.X`: tests/companion).
    HEAD + "def block(pool=nn.AvgPool3d):\n    return pool(2, divisor_override=3)\n",
    HEAD + "def block(pool=nn.AvgPool3d):\n    return Mlp(pool=pool)\n",
    HEAD + "def block(pool=nn.AvgPool3d):\n    return pool(2), pool is nn.AvgPool3d\n",
    # `functools` bound to something else.
    HEAD
    + "functools = None\n\n\ndef block(act_layer=nn.GELU):\n    return act_layer()\n",
    # A name that is not a typing re-export.
    "from torch.jit.annotations import List, BroadcastingList2\n\nx: List[int] = []\n",
    "import torch\n\nshaped = isinstance(s, torch.Size)\n",
]


@pytest.mark.parametrize("source", LEFT_ALONE)
def test_left_alone(source: str) -> None:
    result = convert(source)
    assert result.api_converted < result.api_total, result.code


# TM407 does not write these as comprehensions or loops; the companion foreach ops take them as
# torch does (rules/companion/library/optim.py).
FOREACH_COMPANION = [
    # A global may be rebound between two uses.
    (
        "import torch\n\n\ndef f(xs):\n    torch._foreach_mul_(G, 2)\n"
        "    return torch._foreach_mul(xs, G)\n"
    ),
    # Unknown operand kinds, alpha=, in-place forms, operands with calls.
    "import torch\n\ny = torch._foreach_mul(xs, s)\n",
    "import torch\n\ny = torch._foreach_add(xs, ys, alpha=2)\n",
    "import torch\n\ny = torch._foreach_mul_(xs, 2)\n",
    "import torch\n\ntorch._foreach_add_(xs, 2) or f()\n",
    # A nested function's list is its own; a parameter with a default may be anything.
    (
        "import torch\n\n\ndef f(xs, ys):\n    def g(ys):\n        torch._foreach_mul_(ys, 2)\n"
        "    return torch._foreach_mul(xs, ys)\n"
    ),
    (
        "import torch\n\n\ndef f(xs, ys=None):\n    torch._foreach_mul_(ys, 2)\n"
        "    return torch._foreach_mul(xs, ys)\n"
    ),
    "import torch\n\ny = torch._foreach_mul(xs, -f(s))\n",
    "import torch\n\ny = torch._foreach_mul(xs, s * 2)\n",
    "import torch\n\n\ndef f(xs, ys):\n    ys = g()\n    return torch._foreach_mul(xs, ys)\n",
]


@pytest.mark.parametrize("source", FOREACH_COMPANION)
def test_foreach_left_to_tm407_goes_to_the_companion(source: str) -> None:
    result = convert(source)
    assert "torch" not in result.code and "ms_aux.foreach_" in result.code, result.code
    assert result.api_converted == result.api_total


def test_gelu_default_on_ascend_is_partial_too() -> None:
    code = convert(
        HEAD + "def block(act_layer=nn.GELU):\n    return act_layer()\n", "ascend"
    ).code
    assert "act_layer=" in code and "torch" not in code


# -- real frameworks -----------------------------------------------------------------------


def _run_both(source: str, values: dict, fw) -> tuple[dict, dict]:
    torch, ms = fw
    original = {k: torch.from_numpy(v.copy()) for k, v in values.items()}
    exec(compile(source, "original", "exec"), original)  # noqa: S102 - our snippet
    result = convert_source(source, "snippet.py")
    assert "torch" not in result.code, result.code
    converted = {k: ms.Tensor(v.copy()) for k, v in values.items()}
    exec(compile(result.code, "converted", "exec"), converted)  # noqa: S102 - its conversion
    return original, converted


def _numpy(value) -> list:
    if isinstance(value, (list, tuple)):
        return [a for v in value for a in _numpy(v)]
    if hasattr(value, "asnumpy"):
        return [value.asnumpy()]
    return [value.detach().numpy()]


def _close(a, b) -> None:
    a, b = _numpy(a), _numpy(b)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.shape == y.shape
        np.testing.assert_allclose(y, x, rtol=1e-4, atol=1e-5)


@pytest.mark.real
def test_gelu_default_matches_torch(fw) -> None:
    torch, ms = fw
    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32) * 3
    source = (
        "import torch.nn as nn\n\n\ndef build(act_layer=nn.GELU):\n"
        "    return act_layer()\n\n\nlayer = build()\nout = layer(x)\n"
    )
    original, converted = _run_both(source, {"x": x}, fw)
    _close(original["out"], converted["out"])
    # The gradient too: exact GELU, not the tanh approximation MindSpore uses by default.
    tx = torch.from_numpy(x.copy()).requires_grad_(True)
    original["layer"](tx).sum().backward()
    grad = ms.grad(lambda v: converted["layer"](v).sum())(ms.Tensor(x.copy()))
    np.testing.assert_allclose(grad.asnumpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    tanh = ms.nn.GELU()(ms.Tensor(x.copy())).asnumpy()
    assert not np.allclose(tanh, converted["out"].asnumpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.real
def test_foreach_matches_torch(fw) -> None:
    rng = np.random.default_rng(1)
    values = {
        f"{name}{i}": rng.uniform(0.5, 2.0, (2, 3)).astype(np.float32)
        for name in "ab"
        for i in range(3)
    }
    values.update(c0=np.array(3.0, np.float32), c1=np.array(5.0, np.float32))
    source = (
        "import torch\n\n\ndef run(xs, ys, zs, lr):\n"
        "    roots = torch._foreach_sqrt(xs)\n"
        "    negs = torch._foreach_neg(xs)\n"
        "    scaled = torch._foreach_mul(xs, -lr)\n"
        "    shifted = torch._foreach_add(xs, 1 - lr)\n"
        "    ratios = torch._foreach_div(xs, [2.0, 4.0, 8.0])\n"
        "    halves = torch._foreach_mul(ys, 0.5)\n"
        "    prods = torch._foreach_mul(roots, ys)\n"
        "    tops = torch._foreach_maximum(xs, prods)\n"
        "    torch._foreach_mul_(ys, 0.9)\n"
        "    torch._foreach_add_(ys, torch._foreach_mul(xs, -lr))\n"
        "    torch._foreach_addcdiv_(xs, ys, roots, value=-lr)\n"
        "    torch._foreach_addcmul_(xs, ys, [a, a, a], 0.5)\n"
        "    torch._foreach_maximum_(xs, 1.0)\n"
        "    first = zs[0]\n"
        "    torch._foreach_div_(zs, first / 0.5)\n"
        "    return roots, negs, scaled, shifted, ratios, halves, prods, tops\n\n\n"
        "xs, ys = [a0, a1, a2], [b0, b1, b2]\n"
        "a = b0 * 2\n"
        "zs = [c0, c1]\n"
        "out = run(xs, ys, zs, 0.3)\n"
    )
    original, converted = _run_both(source, values, fw)
    assert all(isinstance(v, list) for v in converted["out"])
    _close(original["out"], converted["out"])
    # The in-place forms changed the tensors of both lists, as torch's did.
    _close(original["xs"] + original["ys"], converted["xs"] + converted["ys"])
    # `first / 0.5` is computed before `first`, an element of `zs`, changes.
    _close(original["zs"], converted["zs"])
    _close([original["a0"]], [converted["a0"]])


@pytest.mark.real
def test_from_numpy_matches_torch(fw) -> None:
    torch, ms = fw
    for array in (
        np.arange(6, dtype=np.float64).reshape(2, 3),
        np.arange(4, dtype=np.uint8),
        np.array([True, False]),
        np.array(2.5, dtype=np.float32),
    ):
        t, m = torch.from_numpy(array), ms.from_numpy(array)
        assert str(t.dtype).replace("torch.", "") == str(m.dtype).lower()
        np.testing.assert_array_equal(t.numpy(), m.asnumpy())
    shared = np.zeros(3, dtype=np.float32)
    t, m = torch.from_numpy(shared), ms.from_numpy(shared)
    shared[0] = 7.0
    assert float(t[0]) == float(m.asnumpy()[0]) == 7.0


@pytest.mark.real
def test_typing_and_size_facts(fw) -> None:
    import typing

    from torch.jit import annotations
    from torch2ms.rules.api.jit_annotations import TYPING_NAMES

    torch, ms = fw
    for name in TYPING_NAMES:
        assert getattr(annotations, name) is getattr(typing, name)
    assert issubclass(torch.Size, tuple)
    assert type(ms.ops.zeros((2, 3)).shape) is tuple
    assert torch.zeros(2, 3).shape == ms.ops.zeros((2, 3)).shape


# -- layer classes named without a call: the torch-aligned `mint.nn` class --------------------

MINT_VALUES = [
    # cpu: the classes whose mint form runs there, unless the module checks classes against them.
    (
        "cpu",
        HEAD + "def block(shrink=nn.Hardshrink):\n"
        "    return shrink(lambd=0.3)\n\n\nlayer = nn.Softshrink\n",
        (
            "from mindspore import mint\n\n\ndef block(shrink=mint.nn.Hardshrink):\n"
            "    return shrink(lambd=0.3)\n\n\nlayer = mint.nn.Softshrink\n"
        ),
    ),
    (
        "ascend",
        HEAD + "def block(act_layer=nn.GELU, pool=nn.AvgPool2d, act6=nn.ReLU6):\n"
        "    return act_layer(approximate='tanh'), pool(2, ceil_mode=True), act6(inplace=True)\n",
        (
            "from mindspore import mint\n\n\n"
            "def block(act_layer=mint.nn.GELU, pool=mint.nn.AvgPool2d, act6=mint.nn.ReLU6):\n"
            "    return act_layer(approximate='tanh'), pool(2, ceil_mode=True), act6(inplace=True)\n"
        ),
    ),
]


@pytest.mark.parametrize("target, before, after", MINT_VALUES)
def test_class_values_become_mint_classes(target: str, before: str, after: str) -> None:
    assert convert(before, target).code == after


@pytest.mark.parametrize(
    ("source", "companion"),
    [
        # A module that checks instances against the class: calls use `mindspore.nn` on cpu, and
        # the value is the companion class, which derives from it.
        (HEAD + "layer = nn.Softmax\nok = isinstance(m, nn.Softmax)\n", "Softmax"),
        (
            HEAD
            + "layer = nn.Softshrink if p else nn.Identity\nsame = layer is nn.Softshrink\n",
            "Softshrink",
        ),
        # No CPU kernel for training.
        (HEAD + "layer = nn.Dropout\n", "Dropout"),
        # No CPU kernel, or not torch's signature.
        (HEAD + "layer = nn.ReLU6\n", "ReLU6"),
        (
            HEAD
            + "def block(act_layer=nn.SiLU):\n    return act_layer(inplace=True)\n",
            "SiLU",
        ),
    ],
)
def test_class_values_not_mint_on_cpu(source: str, companion: str | None) -> None:
    result = convert(source)
    assert "mint" not in result.code
    if companion is None:
        assert result.api_converted < result.api_total
    else:
        assert f"ms_aux.{companion}" in result.code and "torch" not in result.code
        assert result.companion == {companion}


def _init_parameters(cls) -> list:
    import inspect

    return [p for p in inspect.signature(cls.__init__).parameters.values()][1:]


@pytest.mark.real
def test_mint_class_values_take_torch_arguments(fw) -> None:
    """Each listed mint class takes torch's constructor arguments by the same names, positions and
    defaults, and its forward takes torch's inputs by the same names."""
    import importlib
    import inspect

    from torch2ms.rules.api.table_mint import MINT, MINT_CLASS_VALUES

    torch, _ms = fw
    mint_nn = importlib.import_module("mindspore.mint.nn")
    for torch_name in MINT_CLASS_VALUES:
        leaf = torch_name.rsplit(".", 1)[1]
        assert MINT[torch_name] == "mindspore.mint.nn." + leaf
        ours, theirs = getattr(torch.nn, leaf), getattr(mint_nn, leaf)
        want, have = _init_parameters(ours), _init_parameters(theirs)
        assert len(have) >= len(want), torch_name
        for a, b in zip(want, have):
            assert (a.name, a.kind, a.default) == (b.name, b.kind, b.default), (
                torch_name
            )
        for extra in have[len(want) :]:
            assert extra.default is not inspect.Parameter.empty, torch_name
        forward = list(inspect.signature(ours.forward).parameters)
        construct = list(inspect.signature(theirs.construct).parameters)
        assert forward == construct, torch_name


@pytest.mark.real
def test_mint_class_values_match_torch_on_cpu(fw) -> None:
    x = np.random.default_rng(3).standard_normal((2, 3, 4, 4)).astype(np.float32)
    source = (
        "import torch.nn as nn\n\n\ndef build(cls, *args, **kwargs):\n"
        "    return cls(*args, **kwargs)\n\n\n"
        "hard = build(nn.Hardshrink, lambd=0.3)\nsoft = build(nn.Softshrink)\n"
        "smax = build(nn.Softmax)\nsmax1 = build(nn.Softmax, 1)\n"
        "out = [hard(x), soft(x), smax(x), smax1(x)]\n"
    )
    original, converted = _run_both(source, {"x": x}, fw)
    _close(original["out"], converted["out"])
