"""TM313: a Module's `__setstate__` written for torch's dict state takes a Cell's (base, dict)
pair; on the real framework the converted Cell deep-copies with the override run."""

from __future__ import annotations

import copy
import importlib.util

import pytest
from conftest import convert_checked

HEAD = "import torch.nn as nn\n\n\n"
MS_HEAD = "from mindspore import nn\n\n\n"

REWRITTEN = [
    (
        (
            "class A(nn.Module):\n    def __setstate__(self, state):\n"
            "        if 'scale' not in state:\n            state['scale'] = 1.0\n"
            "        super(A, self).__setstate__(state)\n"
        ),
        (
            "class A(nn.Cell):\n    def __setstate__(self, state):\n        cell_state, state = state\n"
            "        if 'scale' not in state:\n            state['scale'] = 1.0\n"
            "        super(A, self).__setstate__((cell_state, state))\n"
        ),
    ),
    # The name for the base state does not take one the method uses.
    (
        (
            "class A(nn.Module):\n    def __setstate__(self, d):\n        cell_state = 2\n"
            "        super().__setstate__(d)\n        self.k = cell_state\n"
        ),
        (
            "class A(nn.Cell):\n    def __setstate__(self, d):\n        cell_state_1, d = d\n"
            "        cell_state = 2\n        super().__setstate__((cell_state_1, d))\n"
            "        self.k = cell_state\n"
        ),
    ),
]


@pytest.mark.parametrize(("before", "after"), REWRITTEN)
def test_setstate_takes_the_cell_state_pair(before: str, after: str) -> None:
    result = convert_checked(HEAD + before)
    assert result.code == MS_HEAD + after


KEPT = [
    # The state is rebound before it is handed on.
    (
        "class A(nn.Module):\n    def __setstate__(self, state):\n        state = dict(state)\n"
        "        super().__setstate__(state)\n"
    ),
    # Not handed on to the base class (or handed on twice).
    "class A(nn.Module):\n    def __setstate__(self, state):\n        self.__dict__.update(state)\n",
    (
        "class A(nn.Module):\n    def __setstate__(self, state):\n        super().__setstate__(state)\n"
        "        super().__setstate__(state)\n"
    ),
    # Not a Module.
    "class A:\n    def __setstate__(self, state):\n        super().__setstate__(state)\n",
]


@pytest.mark.parametrize("source", KEPT)
def test_setstate_left_where_not_certain(source: str) -> None:
    result = convert_checked(HEAD + source)
    assert "cell_state" not in result.code


@pytest.mark.real
def test_converted_cell_deep_copies_with_the_override(fw, tmp_path) -> None:
    source = (
        HEAD
        + "class A(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.fc = nn.Linear(2, 2)\n\n    def __setstate__(self, state):\n"
        "        state['copied'] = True\n        super().__setstate__(state)\n"
    )
    path = tmp_path / "cell_state_case.py"
    path.write_text(convert_checked(source).code, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("cell_state_case", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    original = module.A()
    clone = copy.deepcopy(original)
    assert clone.copied and not hasattr(original, "copied")
    assert clone.fc.weight is not original.fc.weight
    assert (clone.fc.weight.asnumpy() == original.fc.weight.asnumpy()).all()


def test_extra_state_methods_are_reported_at_their_definition() -> None:
    result = convert_checked(
        "import torch\n\nclass Demo(torch.nn.Module):\n"
        "    def get_extra_state(self):\n        return torch.tensor([3.0])\n\n"
        "    def set_extra_state(self, state):\n        self.extra = state\n"
    )
    found = [(f.rule, f.line) for f in result.findings if f.rule == "TM959"]
    assert found == [("TM959", 4), ("TM959", 7)]
