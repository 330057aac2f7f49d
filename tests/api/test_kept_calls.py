"""A torch call that stays on torch keeps torch's names in its arguments (`dtype=torch.float16`)."""

from __future__ import annotations

import pytest
from torch2ms.migrator.context import Options
from torch2ms.migrator.convert import convert_source

KEPT = {
    "amp_autocast": (
        (
            "import torch\n\n\ndef run(model, x, device_type, use_amp):\n"
            "    with torch.amp.autocast(device_type=device_type, dtype=torch.float16, enabled=use_amp):\n"
            "        y = model(x)\n    return y\n"
        ),
        "torch.amp.autocast(device_type=device_type, dtype=torch.float16, enabled=use_amp)",
    ),
    "autocast_positional_dtype": (
        (
            "import torch\n\n\ndef run(model, x, kind):\n"
            "    with torch.autocast(kind, torch.bfloat16):\n"
            "        return model(x)\n"
        ),
        "torch.autocast(kind, torch.bfloat16)",
    ),
}


@pytest.mark.parametrize("name", sorted(KEPT))
def test_arguments_of_a_kept_torch_call_stay_torch(name: str) -> None:
    source, kept = KEPT[name]
    result = convert_source(source, "case.py", Options())
    compile(result.code, "case.py", "exec")
    assert kept in result.code
    assert "mindspore.bfloat16" not in result.code
    assert "mindspore.float16" not in result.code
    again = convert_source(result.code, "case.py", Options())
    assert again.code == result.code


def test_a_converted_call_still_converts_its_dtype() -> None:
    result = convert_source(
        "import torch\n\nx = torch.zeros(3, dtype=torch.float16)\n",
        "case.py",
        Options(),
    )
    assert "dtype=mindspore.float16" in result.code
    assert "torch" not in result.code
