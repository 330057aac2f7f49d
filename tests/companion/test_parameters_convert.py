"""Conversions that use the parameter-setting entries of the companion (library/parameters.py)."""

from __future__ import annotations

import pytest
from conftest import convert_checked


@pytest.mark.parametrize(
    ("source", "line"),
    [
        (
            (
                "import torch\nfrom torch.nn.utils.fusion import fuse_conv_bn_eval\n\n\n"
                "def fuse(self):\n    self.conv = fuse_conv_bn_eval(self.conv, self.norm)\n"
            ),
            "    self.conv = ms_aux.fuse_conv_bn_eval(self.conv, self.norm)\n",
        ),
        (
            (
                "import torch\n\n\ndef fuse(conv, bn):\n"
                "    return torch.nn.utils.fusion.fuse_conv_bn_eval(conv, bn, transpose=True)\n"
            ),
            "    return ms_aux.fuse_conv_bn_eval(conv, bn, transpose=True)\n",
        ),
        (
            (
                "import torch.nn as nn\n\n\ndef fuse(w, b, m, v, eps, g, beta):\n"
                "    return nn.utils.fuse_conv_bn_weights(w, b, m, v, eps, g, beta)\n"
            ),
            "    return ms_aux.fuse_conv_bn_weights(w, b, m, v, eps, g, beta)\n",
        ),
    ],
)
def test_fusion_calls_use_the_companion(source: str, line: str) -> None:
    result = convert_checked(source)
    assert line in result.code
    assert "import ms_aux" in result.code and "torch" not in result.code
    assert not [f for f in result.findings if f.severity == "error"]


INIT_HEAD = "import math\nfrom functools import partial\n\nimport torch\nimport torch.nn as nn\n\n\n"


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            "init = partial(nn.init.kaiming_uniform_, a=math.sqrt(5))",
            "init = partial(ms_aux.init_kaiming_uniform_, a=math.sqrt(5))",
        ),
        (
            "init = partial(nn.init.uniform_, a=-bound, b=bound)",
            "init = partial(ms_aux.init_uniform_, a=-bound, b=bound)",
        ),
        (
            "nn.init.zeros_(w[i].view(shape))",
            "ms_aux.init_zeros_(w[i].view(shape))",
        ),
        (
            "torch.nn.init.trunc_normal_(w.view(-1, 4), std=0.02)",
            "ms_aux.init_trunc_normal_(w.view(-1, 4), std=0.02)",
        ),
        ("g = nn.init.calculate_gain('relu')", "g = ms_aux.calculate_gain('relu')"),
        # a name may hold a view (timm's CondConv initialisers get `weight[i].view(shape)`)
        (
            "init = lambda t: nn.init.normal_(t, 0, math.sqrt(2.0 / bound))",
            "init = lambda t: ms_aux.init_normal_(t, 0, math.sqrt(2.0 / bound))",
        ),
        ("nn.init.zeros_(w)", "ms_aux.init_zeros_(w)"),
    ],
)
def test_initializers_as_values_or_on_views_use_the_companion(
    before: str, after: str
) -> None:
    result = convert_checked(
        INIT_HEAD + f"def init(w, i, shape, bound):\n    {before}\n"
    )
    assert f"    {after}\n" in result.code
    assert "import ms_aux" in result.code and "torch" not in result.code
    assert not [f for f in result.findings if f.severity == "error"]


def test_an_initializer_with_a_generator_stays_reported() -> None:
    result = convert_checked(
        INIT_HEAD + "def init(w, g):\n    nn.init.normal_(w, generator=g)\n"
    )
    assert "ms_aux" not in result.code
    assert [f.rule for f in result.findings if f.severity == "error"] == ["TM941"]


def test_an_initializer_of_a_named_tensor_keeps_the_idiom() -> None:
    result = convert_checked(
        INIT_HEAD
        + "def init(m):\n    nn.init.kaiming_uniform_(m.weight, a=math.sqrt(5))\n"
    )
    assert "m.weight.set_data(mindspore.common.initializer.initializer(" in result.code
    assert "ms_aux" not in result.code


CONDCONV = (
    INIT_HEAD
    + "def get_condconv_initializer(initializer, num_experts, expert_shape):\n"
    "    def condconv_initializer(weight):\n"
    "        for i in range(num_experts):\n"
    "            initializer(weight[i].view(expert_shape))\n"
    "    return condconv_initializer\n\n\n"
    "def reset(weight, num_experts, shape):\n"
    "    init = get_condconv_initializer(\n"
    "        partial(nn.init.kaiming_uniform_, a=math.sqrt(5)), num_experts, shape)\n"
    "    init(weight)\n"
)


@pytest.mark.real
def test_converted_expert_initializer_fills_every_expert_like_torch(
    fw, tmp_path
) -> None:
    """timm's CondConv initialiser, converted: each expert's row is filled through a view, with
    torch's bound for the expert's shape (the view's fans)."""
    import importlib
    import sys

    import numpy as np
    from torch2ms.rules.companion import assemble

    torch, ms = fw
    result = convert_checked(CONDCONV)
    (tmp_path / "ms_aux.py").write_text(
        assemble(sorted(result.companion)), encoding="utf-8"
    )
    (tmp_path / "condconv_converted.py").write_text(result.code, encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        sys.modules.pop("ms_aux", None)
        converted = importlib.import_module("condconv_converted")
    finally:
        sys.path.remove(str(tmp_path))
    original: dict = {}
    exec(compile(CONDCONV, "original.py", "exec"), original)  # noqa: S102 - the original
    shape = (32, 8, 3, 3)
    size = int(np.prod(shape))
    expected = torch.zeros(4, size)
    original["reset"](expected, 4, shape)
    weight = ms.Parameter(ms.Tensor(np.zeros((4, size), np.float32)), name="w")
    ms.set_seed(0)
    converted.reset(weight, 4, shape)
    got, want = weight.asnumpy(), expected.numpy()
    np.testing.assert_allclose(
        np.abs(got).max(axis=1), np.abs(want).max(axis=1), rtol=0.01
    )
    np.testing.assert_allclose(got.std(axis=1), want.std(axis=1), rtol=0.04)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("m.reset_parameters()", "ms_aux.reset_parameters(m)"),
        ("self.norm.reset_parameters()", "ms_aux.reset_parameters(self.norm)"),
        ("self.reset_parameters()", "self.reset_parameters()"),
        ("super().reset_parameters()", "super().reset_parameters()"),
        ("m.reset_parameters(seed)", "m.reset_parameters(seed)"),
    ],
)
def test_reset_parameters_of_a_layer_uses_the_companion(
    before: str, after: str
) -> None:
    source = (
        "import torch.nn as nn\n\n\nclass Block(nn.Module):\n"
        f"    def init(self, m, seed):\n        {before}\n"
    )
    result = convert_checked(source)
    assert f"        {after}\n" in result.code
    assert ("import ms_aux" in result.code) == after.startswith("ms_aux")
    assert "torch" not in result.code and not result.findings
