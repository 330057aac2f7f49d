"""A library converted whole: annotations, names that are not torch's, backend probes and the
code that runs at import time (TM416, TM417, the stand-ins of TM001)."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from conftest import convert_checked
from torch2ms.rules.companion import assemble


def _run_definitions(code: str) -> dict:
    """Execute converted code that defines things (no companion calls at run time)."""
    namespace: dict = {"__name__": "__main__"}
    exec(compile(code.replace("import ms_aux\n", ""), "case.py", "exec"), namespace)
    return namespace


# -- annotations are never broken -------------------------------------------------------------
ANNOTATIONS = [
    (
        "def f(ids: torch.LongTensor | None = None) -> torch.FloatTensor:\n    return ids\n",
        "def f(ids: mindspore.Tensor | None = None) -> mindspore.Tensor:\n    return ids\n",
    ),
    (
        "def f(x: tuple[torch.BoolTensor, ...] | None = None):\n    return x\n",
        "def f(x: tuple[mindspore.Tensor, ...] | None = None):\n    return x\n",
    ),
    (
        "def f(x: torch.futures.Future | None = None):\n    return x\n",
        'def f(x: "torch.futures.Future | None" = None):\n    return x\n',
    ),
    (
        "def f(x: list[torch.fx.Node] | int = 0):\n    return x\n",
        'def f(x: "list[torch.fx.Node] | int" = 0):\n    return x\n',
    ),
]


@pytest.mark.parametrize(("before", "after"), ANNOTATIONS, ids=[a[1][:40] for a in ANNOTATIONS])
def test_annotation_is_a_type_or_text_whole(before: str, after: str) -> None:
    result = convert_checked(f"import torch\n\n\n{before}")
    assert after in result.code
    # Evaluated where the function is defined: no `"text" | None`.
    exec(compile(result.code, "case.py", "exec"), {"__name__": "case"})


def test_dataclass_field_annotation_defines() -> None:
    result = convert_checked(
        "from dataclasses import dataclass\n\nimport torch\n\n\n@dataclass\nclass Out:\n"
        "    group: torch.distributed.ProcessGroup | None = None\n"
        "    hidden: tuple[torch.FloatTensor, ...] | None = None\n"
    )
    namespace = _run_definitions(result.code)
    assert namespace["Out"]().group is None


# -- a name the module imports from elsewhere is not torch's ------------------------------------
def test_library_init_module_is_not_a_tensor() -> None:
    source = (
        "import torch\nfrom torch import nn\nfrom ... import initialization as init\n\n\n"
        "class P(nn.Module):\n    def _init_weights(self, module):\n"
        "        init.normal_(module.weight, mean=0.0, std=0.02)\n"
        "        init.uniform_(module.bias, -1, 1)\n"
        "        module.scale.normal_(0, 0.02)\n"
    )
    code = convert_checked(source).code
    assert "init.normal_(module.weight, mean=0.0, std=0.02)" in code
    assert "init.uniform_(module.bias, -1, 1)" in code
    assert "ops.assign(init" not in code
    # A tensor of the module's own is still filled the MindSpore way.
    assert "ops.assign(module.scale" in code


# -- backend probes ---------------------------------------------------------------------------
PROBES = [
    (
        "def has(name):\n    return importlib.util.find_spec(name) is not None\n",
        "def has(name):\n    return ms_aux.find_spec(name) is not None\n",
    ),
    (
        "def version_of(name):\n    return importlib.metadata.version(name)\n",
        "def version_of(name):\n    return ms_aux.package_version(name)\n",
    ),
    (
        'def is_torch_flex_attn_available():\n    """Doc."""\n'
        "    return is_torch_available() and get_device_type() != 'tpu'\n",
        'def is_torch_flex_attn_available():\n    """Doc."""\n    return False\n',
    ),
    (
        "def is_torch_cuda_available():\n    return torch.cuda.is_available()\n",
        "def is_torch_cuda_available():\n    return False\n",
    ),
]


@pytest.mark.parametrize(("before", "after"), PROBES, ids=[p[1][:30] for p in PROBES])
def test_probe(before: str, after: str) -> None:
    result = convert_checked(
        f"import importlib.metadata\nimport importlib.util\n\nimport torch\n\n\n{before}"
    )
    assert after in result.code


# Probes of other things, and functions that only look like probes, stay.
KEPT = [
    "def is_tokenizers_available():\n    return _is_package_available('tokenizers')\n",
    "def is_torch_available():\n    return _is_package_available('torch')\n",
    "def is_cuda_graph(x):\n    return x.cuda\n",
]


@pytest.mark.parametrize("source", KEPT)
def test_not_a_feature_probe(source: str) -> None:
    result = convert_checked(f"import torch\n\n\n{source}\nx = torch.zeros(1)\n")
    assert source in result.code


# -- import time ------------------------------------------------------------------------------
def test_torch_only_values_at_import_time_stand_in() -> None:
    source = (
        "import torch\nfrom torch.distributed.tensor import DTensor\n\n"
        'TABLE = {"event": torch.cuda.Event}\n\n\nclass Q:\n    dtype = torch.float8_e4m3fn\n'
        "    mask = torch.nn.attention.flex_attention.BlockMask\n\n"
        "    def f(self, x):\n        if isinstance(x, (DTensor, torch.cuda.Stream)):\n"
        "            return torch.cuda.Stream()\n        return x\n"
    )
    code = convert_checked(source).code
    assert 'TABLE = {"event": ms_aux.torch_only("torch.cuda.Event")}' in code
    assert "dtype = mindspore.float8_e4m3fn" in code
    assert 'mask = ms_aux.torch_only("torch.nn.attention.flex_attention.BlockMask")' in code
    assert 'isinstance(x, (ms_aux.torch_only("torch.distributed.tensor.DTensor"), ' in code
    # Called in a function body, it stays on torch, imported where it runs.
    assert "import torch\n" in code.split("def f", 1)[1]
    assert "return torch.cuda.Stream()" in code
    assert not code.startswith("import torch")


def test_called_at_module_level_stays_on_torch() -> None:
    code = convert_checked("import torch\n\ncap = torch.cuda.get_device_capability()\n").code
    assert "import torch\n" in code
    assert "cap = torch.cuda.get_device_capability()" in code


def test_compiler_hint_decorators_are_removed() -> None:
    source = (
        "import torch\n\n\n@torch.compiler.disable\ndef f(x):\n    return x\n\n\n"
        "@torch._dynamo.disable(recursive=False)\ndef g(x):\n    return x\n"
    )
    code = convert_checked(source).code
    assert "torch" not in code
    assert "def f(x):\n    return x" in code and "def g(x):\n    return x" in code


# -- the companion's probes, run (no framework needed for what they answer) --------------------
@pytest.fixture(scope="module")
def probes(tmp_path_factory):
    path = tmp_path_factory.mktemp("aux") / "ms_aux_probes.py"
    path.write_text(
        assemble(["find_spec", "package_version", "torch_only"]), encoding="utf-8"
    )
    spec = importlib.util.spec_from_file_location("ms_aux_probes", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_probes_answer_for_the_backend(probes) -> None:
    backend = importlib.util.find_spec("mindspore")
    assert probes.find_spec("torch") == backend
    assert probes.find_spec("torchvision") is None
    assert probes.find_spec("torch.distributed") is None
    assert probes.find_spec("json") == importlib.util.find_spec("json")
    assert probes.package_version("pytest") == importlib.metadata.version("pytest")
    with pytest.raises(importlib.metadata.PackageNotFoundError):
        probes.package_version("torchvision")
    if backend is not None:
        assert probes.package_version("torch").startswith("2.13.0")


def test_torch_only_stand_in(probes) -> None:
    block_mask = probes.torch_only("torch.nn.attention.flex_attention.BlockMask")
    assert not isinstance(object(), block_mask)
    with pytest.raises(NotImplementedError, match="flex_attention.BlockMask"):
        block_mask(1)
    with pytest.raises(NotImplementedError, match="BlockMask.from_kv_blocks"):
        block_mask.from_kv_blocks(1)

    class Sub(probes.torch_only("torch.autograd.Function")):  # a base class at import time
        pass

    assert Sub.__name__ == "Sub"


# -- the API tail -------------------------------------------------------------------------------
BUFFERS = [
    ("self.b = nn.Buffer(torch.zeros(3))", "self.b = mindspore.Parameter(ops.zeros(3), requires_grad=False)"),
    ("self.b = nn.Buffer(torch.zeros(3), persistent=False)", "self.b = ops.zeros(3)"),
    ("self.b = torch.nn.Buffer(data=t, persistent=True)", "self.b = mindspore.Parameter(t, requires_grad=False)"),
]


@pytest.mark.parametrize(("before", "after"), BUFFERS, ids=[b[0] for b in BUFFERS])
def test_buffer_declared_by_assignment(before: str, after: str) -> None:
    source = (
        "import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n"
        f"    def __init__(self, t):\n        super().__init__()\n        {before}\n"
    )
    code = convert_checked(source).code
    assert f"        {after}\n" in code
    assert "import torch" not in code


def test_forward_read_through_the_class_is_construct() -> None:
    source = (
        "from functools import wraps\n\nimport torch\nfrom torch import nn\n\n\n"
        "class Layer(nn.Module):\n    def __init_subclass__(cls, **kwargs):\n"
        "        forward = cls.forward\n\n        @wraps(forward)\n"
        "        def wrapped(self, *args):\n            outer = type(self).forward is wrapped\n"
        "            return forward(self, *args)\n\n        cls.forward = wrapped\n\n"
        "    def forward(self, x):\n        return x\n\n\nclass Plain:\n"
        "    def go(self):\n        return self.forward\n"
    )
    code = convert_checked(source).code
    assert "forward = cls.construct" in code
    assert "outer = type(self).construct is wrapped" in code
    assert "cls.construct = wrapped" in code
    assert "return self.forward" in code  # not a Module: its own forward
