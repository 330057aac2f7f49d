"""TM905: `try: from torch import X` / `except ImportError: <fallback>` keeps the fallback."""

from __future__ import annotations

import pytest
from conftest import convert_checked

REWRITTEN = [
    (
        (
            "try:\n    from torch import _assert\nexcept ImportError:\n"
            "    def _assert(condition, message):\n        assert condition, message\n"
        ),
        "def _assert(condition, message):\n    assert condition, message\n",
    ),
    (
        (
            "try:\n    from torchvision.ops import nms\n    HAS_NMS = True\n"
            "except (ImportError, RuntimeError):\n    HAS_NMS = False\n"
        ),
        "HAS_NMS = False\n",
    ),
    (
        (
            "def f():\n    try:\n        import torch\n    except ModuleNotFoundError:\n"
            "        return None\n    return 1\n"
        ),
        "def f():\n    return None\n    return 1\n",
    ),
]


@pytest.mark.parametrize(("source", "expected"), REWRITTEN)
def test_the_fallback_stays(source: str, expected: str) -> None:
    result = convert_checked(source)
    body = "\n".join(
        line for line in result.code.splitlines() if not line.lstrip().startswith("#")
    )
    assert body.strip() == expected.strip()
    assert [f.rule for f in result.findings] == ["TM905"]


UNTOUCHED = [
    # the try does more than import torch
    "import torch\ntry:\n    import torch\n    x = load()\nexcept ImportError:\n    x = None\n",
    # a finally block would run after the fallback's return
    "try:\n    import torch\nexcept ImportError:\n    pass\nfinally:\n    done = 1\n",
    # no ImportError handler
    "import torch\ntry:\n    import torch\nexcept ValueError:\n    pass\n",
]


@pytest.mark.parametrize("source", UNTOUCHED)
def test_other_try_statements_are_left(source: str) -> None:
    result = convert_checked(source)
    assert "try:" in result.code
    assert "TM905" not in {f.rule for f in result.findings}


def test_a_fallback_that_imports_torch_too_is_converted_as_usual() -> None:
    source = (
        "try:\n    from torch.hub import get_dir\nexcept ImportError:\n"
        "    from torch.hub import _get_torch_home as get_dir\n\n"
        "def cache():\n    return get_dir()\n"
    )
    result = convert_checked(source)
    assert "TM905" not in {f.rule for f in result.findings}
    assert "from torch" not in result.code
