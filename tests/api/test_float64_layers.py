"""Layers made in float64 where they are built, and float8 dtypes on the CPU target (TM960)."""

from __future__ import annotations

import sys

import pytest
from conftest import convert_checked
from torch2ms.rules.companion import assemble


def _rules(result) -> list[tuple[str, int]]:
    return [(f.rule, f.line) for f in result.findings]


@pytest.mark.parametrize(
    ("line", "after"),
    [
        (
            "m = nn.BatchNorm1d(4, dtype=torch.float64)",
            "m = ms_aux.BatchNorm1d(4, dtype=mindspore.float64)",
        ),
        (
            "m = nn.BatchNorm2d(4).double()",
            'm = ms_aux.module_cast(ms_aux.BatchNorm2d(4), "double")',
        ),
        (
            "m = nn.BatchNorm2d(4).to(torch.float64)",
            "m = ms_aux.BatchNorm2d(4).to(mindspore.float64)",
        ),
        (
            "m = nn.Linear(4, 2).double()",
            'm = ms_aux.module_cast(nn.Dense(4, 2), "double")',
        ),
        # float32 and float16 layers keep the idiom
        ("m = nn.BatchNorm2d(4)", "m = nn.BatchNorm2d(4)"),
        (
            "m = nn.BatchNorm2d(4).to(torch.float32)",
            "m = nn.BatchNorm2d(4).to(mindspore.float32)",
        ),
    ],
)
def test_float64_batchnorm_is_the_companions(line: str, after: str) -> None:
    result = convert_checked(f"import torch\nimport torch.nn as nn\n{line}\n")
    assert after in result.code, result.code
    assert not result.findings


@pytest.mark.parametrize(
    "line",
    [
        "m = nn.Conv2d(3, 4, 3, dtype=torch.float64)",
        "m = nn.Conv1d(3, 4, 3).double()",
        "m = nn.ConvTranspose2d(3, 4, 3).to(torch.double)",
        "m = nn.Conv3d(3, 4, 3).to(dtype=torch.float64)",
        "y = x.to(torch.float8_e4m3fn)",
        "y = x.to(torch.float8_e5m2).float()",
    ],
)
def test_no_cpu_kernel_for_the_dtype_is_reported_at_its_line(line: str) -> None:
    source = f"import torch\nimport torch.nn as nn\nx = torch.ones(2)\n{line}\n"
    result = convert_checked(source)
    assert ("TM960", 4) in _rules(result), result.code
    assert "torch" not in result.code.replace("torch2ms", "")
    # on Ascend the kernels exist: nothing to report for float8
    if "float8" in line:
        assert not convert_checked(source, target="ascend").findings


@pytest.mark.parametrize(
    "line",
    [
        "m = nn.Conv2d(3, 4, 3)",
        "m = nn.Conv2d(3, 4, 3, dtype=torch.float32)",
        "m = nn.Conv2d(3, 4, 3).float()",
        "y = x.to(torch.bfloat16)",
    ],
)
def test_dtypes_with_kernels_are_not_reported(line: str) -> None:
    result = convert_checked(
        f"import torch\nimport torch.nn as nn\nx = torch.ones(2)\n{line}\n"
    )
    assert "TM960" not in [rule for rule, _ in _rules(result)]


@pytest.mark.parametrize("cast", ["double", "half", "float"])
def test_a_layer_rebound_to_its_own_cast_is_cast_as_a_module(cast: str) -> None:
    source = (
        f"import torch.nn as nn\nh = nn.Linear(3, 2)\nh = h.{cast}()\nh = h.to('cpu')\n"
    )
    result = convert_checked(source)
    assert f'h = ms_aux.module_cast(h, "{cast}")' in result.code, result.code


@pytest.mark.real
def test_cast_layers_compute_in_their_dtype(fw, tmp_path) -> None:
    _, ms = fw
    source = (
        "import torch\nimport torch.nn as nn\n"
        "h = nn.Linear(3, 2)\nh = h.double()\n"
        "g = nn.Linear(3, 2).half()\n"
        "y = h(torch.ones(4, 3, dtype=torch.float64))\n"
    )
    result = convert_checked(source)
    (tmp_path / "ms_aux.py").write_text(
        assemble(sorted(result.companion)), encoding="utf-8"
    )
    sys.path.insert(0, str(tmp_path))
    sys.modules.pop("ms_aux", None)
    try:
        space: dict = {}
        exec(compile(result.code, "converted.py", "exec"), space)  # noqa: S102 - our snippet
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("ms_aux", None)
    assert space["h"].weight.dtype == ms.float64
    assert space["g"].weight.dtype == ms.float16
    assert space["y"].dtype == ms.float64
