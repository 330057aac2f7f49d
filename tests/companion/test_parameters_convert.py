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
