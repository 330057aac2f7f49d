"""`hasattr(<torch module>, "name")` becomes whether the conversion maps that API on the target."""

from __future__ import annotations

import pytest
from conftest import convert_checked
from torch2ms.migrator.context import Options
from torch2ms.migrator.convert import convert_source

CASES = [
    # mapped on every target: the code takes the branch that calls it, which is converted
    ('ok = hasattr(F, "softmax")', "cpu", "ok = True"),
    # a companion entry stands for it on CPU
    ('ok = hasattr(torch, "roll")', "cpu", "ok = True"),
    # no CPU kernel and no companion: the fallback branch runs
    ('ok = hasattr(torch, "take")', "cpu", "ok = False"),
    ('ok = hasattr(torch, "take")', "ascend", "ok = True"),
    # a submodule counts when something under it is mapped
    ('ok = hasattr(torch, "linalg")', "cpu", "ok = True"),
    ('ok = hasattr(torch, "no_such_thing")', "cpu", "ok = False"),
]


@pytest.mark.parametrize(("line", "target", "expected"), CASES)
def test_feature_check_answers_for_the_converted_program(
    line: str, target: str, expected: str
) -> None:
    source = f"import torch\nimport torch.nn.functional as F\n{line}\n"
    code = convert_checked(source, target=target).code
    assert code.strip().splitlines()[-1] == expected
    assert "torch" not in code


def test_hasattr_on_other_objects_is_left_alone() -> None:
    source = "import torch\n\ndef f(m):\n    return hasattr(m, 'weight'), torch.relu\n"
    code = convert_checked(source).code
    assert "hasattr(m, 'weight')" in code


def test_a_torch_module_in_an_annotation_becomes_the_mindspore_module() -> None:
    source = (
        "import torch\nimport torch.nn.functional as F\n\n"
        "def pool(x, fmt: F = 'NCHW') -> torch.Tensor:\n    return x\n"
    )
    code = convert_checked(source).code
    assert "def pool(x, fmt: ops = 'NCHW') -> mindspore.Tensor:" in code
    assert "torch" not in code


def test_a_class_named_through_a_module_in_an_annotation_is_not_the_module() -> None:
    source = (
        "import torch\nfrom typing import Optional\n\n"
        "def f(n, device: Optional[torch.device] = None):\n    return n\n"
    )
    code = convert_checked(source).code
    assert "mindspore.device" not in code


GETATTR = [
    # nothing of that name in the converted program: the default
    (
        'f = getattr(getattr(torch, "compiler", None), "disable", None) or g',
        'f = getattr(None, "disable", None) or g',
    ),
    # a function the conversion maps as a value stands in for the attribute
    ('f = getattr(torch, "sigmoid", None)', "f = ops.sigmoid"),
    ('f = getattr(torch, "roll", None)', "f = ms_aux.roll"),
]


@pytest.mark.parametrize(("line", "expected"), GETATTR)
def test_getattr_with_a_default_answers_for_the_converted_program(
    line: str, expected: str
) -> None:
    source = f"import torch\nimport torch.nn.functional as F\n{line}\n"
    code = convert_checked(source).code
    assert code.strip().splitlines()[-1] == expected
    assert "torch" not in code


def test_a_name_looked_up_in_dir_of_a_torch_module() -> None:
    source = (
        "import torch\n"
        "has_silu = 'silu' in dir(torch.nn.functional)\n"
        "no_take = 'take' not in dir(torch)\n"
    )
    code = convert_checked(source).code
    assert code.splitlines()[-2:] == ["has_silu = True", "no_take = True"]


# The branch an answered check rules out never runs in the converted program: it is dropped, with
# whatever torch-only code it held, and so is what follows a return in the branch taken.
BRANCHES = [
    (
        (
            "def meta(device):\n"
            "    if device is not None:\n"
            "        return str(device) == 'meta'\n"
            "    if hasattr(torch, 'get_default_device'):\n"
            "        return torch.get_default_device().type == 'meta'\n"
            "    return False\n"
        ),
        (
            "def meta(device):\n"
            "    if device is not None:\n"
            "        return str(device) == 'meta'\n"
            "    return ms_aux.get_default_device().type == 'meta'\n"
        ),
    ),
    (
        (
            "def unsafe(path):\n"
            "    if not hasattr(torch.serialization, 'get_unsafe_globals_in_checkpoint'):\n"
            "        return ''\n"
            "    return torch.serialization.get_unsafe_globals_in_checkpoint(path)\n"
        ),
        "def unsafe(path):\n    return ''\n",
    ),
    (
        (
            "if hasattr(torch, 'take'):\n    f = torch.take\n"
            "elif hasattr(F, 'silu'):\n    f = F.silu\nelse:\n    f = None\n"
        ),
        "f = ms_aux.silu\n",
    ),
    (
        (
            "if ready:\n    f = 0\nelif hasattr(torch, 'take'):\n    f = torch.take\n"
            "else:\n    f = None\n"
        ),
        "if ready:\n    f = 0\nelse:\n    f = None\n",
    ),
    (
        "if 'silu' in dir(F) and fast:\n    f = F.silu\n",
        "if True and fast:\n    f = ms_aux.silu\n",
    ),
]


@pytest.mark.parametrize(("body", "expected"), BRANCHES)
def test_a_branch_ruled_out_is_dropped(body: str, expected: str) -> None:
    source = "import torch\nimport torch.nn.functional as F\n\n" + body
    result = convert_source(source, "case.py", Options(target="cpu"))
    assert result.code.endswith(expected)
    assert "torch" not in result.code.replace("torch2ms", "")
    assert not [f for f in result.findings if f.severity == "error"]
    assert (
        convert_source(result.code, "case.py", Options(target="cpu")).code
        == result.code
    )


def test_a_call_before_a_deciding_answer_is_kept() -> None:
    # `setup()` runs before the answer is read: the `if` and its call stay.
    source = (
        "import torch\nimport torch.nn.functional as F\n\n"
        "if setup() or hasattr(F, 'silu'):\n    f = 1\n"
    )
    result = convert_source(source, "case.py", Options(target="cpu"))
    assert "if setup() or True:\n    f = 1\n" in result.code


def test_a_name_before_a_deciding_answer_does_not_keep_the_branch() -> None:
    source = (
        "import torch\n\n"
        "def pick(recent):\n"
        "    if recent and hasattr(torch, 'take'):\n"
        "        return torch.take\n"
        "    return None\n"
    )
    result = convert_source(source, "case.py", Options(target="cpu"))
    assert result.code.endswith("def pick(recent):\n    return None\n")
