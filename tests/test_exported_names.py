"""Names torch exports under more than one path resolve to the one torch's tables know."""

from __future__ import annotations

import pytest
from torch2ms.migrator.aliases import self_reference_dropped
from torch2ms.migrator.context import Options
from torch2ms.migrator.convert import convert_source


@pytest.mark.parametrize(
    ("written", "resolved"),
    [
        ("torch.torch.finfo", "torch.finfo"),
        ("torch.torch.torch.tril", "torch.tril"),
        ("torch.functional.norm", "torch.norm"),
        ("torch.functional.atleast_3d", "torch.atleast_3d"),
        ("torch.random.manual_seed", "torch.manual_seed"),
        ("torch.autograd.grad_mode.no_grad", "torch.no_grad"),
        # not exported from torch.functional: left as written
        ("torch.functional.F", "torch.functional.F"),
        ("torch.nn.functional.relu", "torch.nn.functional.relu"),
    ],
)
def test_exported_names(written: str, resolved: str) -> None:
    assert self_reference_dropped(written) == resolved


def test_a_module_alias_of_torch_functional_converts_like_torch() -> None:
    source = (
        "import torch\nimport torch.functional as TF\n\n"
        "x = torch.ones(2, 3)\n"
        "y = TF.atleast_3d(torch.torch.tril(x))\n"
    )
    result = convert_source(source, "m.py", Options())
    assert "torch" not in result.code
    assert "ops.atleast_3d(ops.tril(x))" in result.code
