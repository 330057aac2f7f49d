"""TM001/TM900/TM901: torch imports, leftovers and torch-only packages."""

from __future__ import annotations

import ast

import pytest
from torch2ms.migrator.aliases import torch_aliases
from torch2ms.migrator.convert import convert_source


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import torch\n", {"torch": "torch"}),
        ("import torch as T\n", {"T": "torch"}),
        ("import torch.nn as nn\n", {"nn": "torch.nn"}),
        ("import torch.nn\n", {"torch": "torch"}),
        ("from torch import nn, optim\n", {"nn": "torch.nn", "optim": "torch.optim"}),
        ("from torch.nn import functional as F\n", {"F": "torch.nn.functional"}),
        ("import torch.nn.functional as F\n", {"F": "torch.nn.functional"}),
        (
            "from torch.autograd import Variable\n",
            {"Variable": "torch.autograd.Variable"},
        ),
        ("def f():\n    import torch as th\n", {"th": "torch"}),
        ("import torchvision\nfrom . import torch\n", {"torchvision": "torchvision"}),
        ("import torchaudio\nfrom . import torch\n", {}),
        (
            "from torchvision import datasets, transforms\n",
            {
                "datasets": "torchvision.datasets",
                "transforms": "torchvision.transforms",
            },
        ),
        (
            "import torchvision.transforms.functional as TF\n",
            {"TF": "torchvision.transforms.functional"},
        ),
        ("import numpy as np\n", {}),
    ],
)
def test_aliases(source: str, expected: dict) -> None:
    assert torch_aliases(ast.parse(source)) == expected


@pytest.mark.parametrize(
    "source",
    [
        "x = 1\n",
        "# torch is mentioned only in a comment\nx = 1\n",
        "import numpy as np\ntorch_like = np.zeros(3)\n",
        "from . import torch\n",
    ],
)
def test_files_without_torch_imports_are_untouched(source: str) -> None:
    result = convert_source(source)
    assert result.code == source
    assert not result.findings


def test_leftover_is_spelled_in_full_and_import_kept() -> None:
    source = "import torch.nn as nn\n\nlayer = nn.Unknown(3)\n"
    result = convert_source(source)
    assert "torch.nn.Unknown(3)" in result.code
    assert result.code.count("import torch\n") == 1
    assert [f.rule for f in result.findings] == ["TM900"]
    assert result.findings[0].line == 3
    assert result.api_total == 1 and result.api_converted == 0


def test_comments_and_layout_are_kept() -> None:
    source = '"""Module doc."""\n\n# a comment\nimport os  # keep me\n\nx = os.sep  # trailing\n'
    assert convert_source(source).code == source


def test_semicolon_statements() -> None:
    source = "import os; import torch\nx = torch.cuda.is_available()\n"
    result = convert_source(source)
    compile(result.code, "t.py", "exec")
    assert "import os" in result.code
    assert convert_source(result.code).code == result.code


def test_local_torch_import_removed_when_unused() -> None:
    source = "def f(x):\n    import torch\n    return x\n"
    result = convert_source(source)
    assert "import torch" not in result.code
    compile(result.code, "t.py", "exec")


def test_keywords_and_attributes_named_like_aliases_are_not_uses() -> None:
    source = "import torch.nn as nn\n\ndef f(cfg):\n    return cfg.nn + g(nn=cfg)\n"
    result = convert_source(source)
    assert "cfg.nn" in result.code and "g(nn=cfg)" in result.code
    assert not [f for f in result.findings if f.rule == "TM900"]


def test_torch_only_package_reported_and_kept() -> None:
    source = "import torchaudio.transforms as T\n\nt = T.Spectrogram()\n"
    result = convert_source(source)
    assert "import torchaudio.transforms as T" in result.code
    assert [f.rule for f in result.findings] == ["TM901"]
    assert result.findings[0].line == 1


def test_unmapped_torchvision_use_stays_on_torchvision() -> None:
    """torchvision names resolve like torch's; what nothing maps stays as written, reported as
    torch-only at its line, and the import that binds it stays where it was."""
    source = "import torchvision.transforms as T\n\nt = T.RandomErasing()\nu = T.ToTensor()\n"
    result = convert_source(source)
    assert "import torchvision.transforms as T\n" in result.code
    assert "t = T.RandomErasing()" in result.code
    assert "u = vision.ToTensor()" in result.code
    assert "import torch\n" not in result.code
    assert [(f.rule, f.line) for f in result.findings] == [("TM901", 1), ("TM901", 3)]
    assert convert_source(result.code).code == result.code


def test_torchvision_import_in_a_try_block_takes_its_fallback() -> None:
    source = (
        "try:\n    from torchvision.datasets import Places365\n    has = True\n"
        "except ImportError:\n    has = False\n\nd = Places365('x') if has else None\n"
    )
    result = convert_source(source)
    assert result.code.splitlines()[1] == "has = False"
    assert "d = Places365('x') if has else None" in result.code
    assert "import torchvision" not in result.code
    assert "from torchvision" not in result.code
    assert "TM905" in {f.rule for f in result.findings}
