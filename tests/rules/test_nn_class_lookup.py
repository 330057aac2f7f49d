"""TM323: torch.nn layer classes chosen by name at run time, and torch's Transformer class."""

from __future__ import annotations

import ast
import os
import re

import pytest
from torch2ms.migrator.context import Options
from torch2ms.migrator.convert import convert_source
from torch2ms.rules.companion import LIBRARY
from torch2ms.rules.companion.table import ENTRIES


def _code(source: str) -> str:
    return convert_source(source, "m.py", Options()).code


def test_a_class_looked_up_in_torch_nn_is_the_companions() -> None:
    code = _code(
        "import torch.nn as nn\n\n"
        "def make(kind, n):\n"
        "    return getattr(nn, kind)(n, n, 2, dropout=0.1)\n"
    )
    assert "ms_aux.nn_class(kind)(n, n, 2, dropout=0.1)" in code
    assert "torch" not in code


@pytest.mark.parametrize(
    "source",
    [
        # another object's attribute, a default value, a getattr of the user's own
        "import torch.nn as nn\n\ndef f(m, k):\n    return getattr(m, k)\n",
        "import torch.nn as nn\n\ndef f(k):\n    return getattr(nn, k, None)\n",
        "import torch.nn as nn\n\ngetattr = dict.get\n\ndef f(k):\n    return getattr(nn, k)\n",
    ],
)
def test_other_lookups_are_not_rewritten(source: str) -> None:
    assert "ms_aux.nn_class" not in _code(source)


def test_the_lookup_serves_every_torch_nn_companion_class() -> None:
    """nn_class's table lists exactly the torch.nn classes that have a companion class."""
    with open(os.path.join(LIBRARY, "nn_lookup.py"), encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    (table,) = [n for n in ast.walk(tree) if isinstance(n, ast.Dict)]
    listed = {key.value: value.id for key, value in zip(table.keys, table.values)}
    expected = {
        torch[len("torch.nn.") :]: entry
        for torch, entry in ENTRIES.items()
        if re.fullmatch(r"torch\.nn\.[A-Z]\w*", torch) and torch.endswith("." + entry)
    }
    assert listed == expected


def test_a_transformer_subclass_derives_from_the_companion_class() -> None:
    code = _code(
        "import torch.nn as nn\n\n"
        "class Model(nn.Transformer):\n"
        "    def __init__(self, d):\n"
        "        super().__init__(d_model=d, nhead=2)\n\n"
        "    def forward(self, src):\n"
        "        mask = nn.Transformer.generate_square_subsequent_mask(len(src))\n"
        "        return self.encoder(src, mask=mask)\n"
    )
    assert "class Model(ms_aux.Transformer):" in code
    assert "ms_aux.Transformer.generate_square_subsequent_mask(len(src))" in code
    assert "def construct(self, src):" in code
    assert "torch" not in code
