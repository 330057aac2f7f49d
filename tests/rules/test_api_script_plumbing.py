"""What whole training scripts (shaped like pytorch/examples' dcgan) need converted: `torch.full`,
cuDNN settings, device flags, `data_parallel`, layers told apart by class name, and Tensor methods
whose MindSpore form is the same text."""

from __future__ import annotations

import pytest
from conftest import convert_checked


def _convert(source: str, **options) -> str:
    return convert_checked(source, **options).code


def test_full_with_a_written_dtype_is_the_idiom_else_the_companion() -> None:
    code = _convert(
        "import torch\n\ndef f(x, dtype=None):\n"
        "    a = torch.full((2, 3), 1.5, dtype=torch.float32)\n"
        "    b = torch.full((x.size(0),), 1, dtype=x.dtype, device=x.device)\n"
        "    c = torch.full((2,), 0.5)\n"
        "    d = torch.full((2,), 0.5, dtype=dtype)\n"
        "    return a, b, c, d\n"
    )
    assert "a = ops.full((2, 3), 1.5, dtype=mindspore.float32)" in code
    assert "b = ops.full((x.shape[0],), 1, dtype=x.dtype)" in code
    assert "c = ms_aux.full((2,), 0.5)" in code
    assert "d = ms_aux.full((2,), 0.5, dtype=dtype)" in code
    assert "import torch" not in code


def test_cudnn_settings_are_removed_with_a_note() -> None:
    result = convert_checked(
        "import torch\nimport torch.backends.cudnn as cudnn\n\n"
        "torch.backends.cudnn.benchmark = True\ncudnn.deterministic = not False\n"
        "x = torch.zeros(2)\n"
    )
    assert "cudnn" not in result.code.replace("TM412 cuDNN", "")
    assert "x = ops.zeros(2)" in result.code
    assert {(f.rule, f.severity) for f in result.findings} == {("TM412", "note")}


def test_tf32_matmul_flags_are_removed_with_a_note() -> None:
    """TF32 applies to CUDA matmuls and convolutions only: on MindSpore nothing reads it."""
    result = convert_checked(
        "import torch\n\n"
        "torch.backends.cuda.matmul.allow_tf32 = True\n"
        "torch.backends.cudnn.allow_tf32 = True\n"
        "x = torch.ones(2)\n"
    )
    assert "allow_tf32" not in result.code
    assert "import torch" not in result.code
    assert "x = ops.ones(2)" in result.code
    assert {(f.rule, f.severity) for f in result.findings} == {("TM412", "note")}


def test_a_cudnn_setting_computed_by_a_call_stays() -> None:
    code = _convert(
        "import torch\n\ndef pick():\n    return True\n\ntorch.backends.cudnn.benchmark = pick()\n"
    )
    # the call still runs; its value goes to the companion's stand-in for the setting
    assert "ms_aux.cudnn_benchmark = pick()" in code


def test_device_flags_read_false_on_the_cpu_target_and_data_parallel_is_the_call() -> (
    None
):
    source = (
        "import torch.nn as nn\n\nclass D(nn.Module):\n"
        "    def __init__(self, ngpu):\n        super().__init__()\n"
        "        self.main = nn.Sequential(nn.Linear(2, 2))\n        self.ngpu = ngpu\n\n"
        "    def forward(self, input):\n"
        "        if (input.is_cuda or input.is_xpu) and self.ngpu > 1:\n"
        "            output = nn.parallel.data_parallel(self.main, input, range(self.ngpu))\n"
        "        else:\n            output = self.main(input)\n"
        "        return output.view(-1, 1).squeeze(1)\n"
    )
    code = _convert(source)
    assert "if (False or False) and self.ngpu > 1:" in code
    assert "output = ms_aux.data_parallel(self.main, input, range(self.ngpu))" in code
    assert "return ms_aux.tensor_squeeze(output.view(-1, 1), 1)" in code
    assert "torch" not in code and "TM941" not in code
    assert "input.is_cuda" in _convert(source, target="gpu")


def test_is_cpu_holds_for_every_tensor_on_the_cpu_target() -> None:
    source = "import torch\n\nx = torch.zeros(2, 8).cpu()\nresult = x.is_cpu\n"
    assert "result = True" in _convert(source)
    assert "result = x.is_cpu" in _convert(source, target="gpu")


def test_a_device_flag_the_module_assigns_itself_stays() -> None:
    code = _convert(
        "import torch\n\nclass Box:\n    def __init__(self):\n        self.is_cuda = True\n\n"
        "def f(box):\n    return torch.zeros(2) if box.is_cuda else None\n"
    )
    assert "box.is_cuda" in code


def test_layers_told_apart_by_class_name_take_mindspores_names() -> None:
    code = _convert(
        "import torch.nn as nn\n\ndef weights_init(m):\n"
        "    classname = m.__class__.__name__\n"
        "    if classname.find('Conv') != -1:\n"
        "        nn.init.normal_(m.weight, 0.0, 0.02)\n"
        "    elif classname.find('BatchNorm') != -1:\n"
        "        nn.init.normal_(m.weight, 1.0, 0.02)\n"
        "        nn.init.zeros_(m.bias)\n"
        "    elif 'Norm' in type(m).__name__:\n"
        "        nn.init.ones_(m.weight)\n"
    )
    conv, batch_norm, norm = code.split("elif")
    assert "m.weight" in conv and "m.gamma" not in conv
    assert (
        "m.gamma" in batch_norm
        and "m.beta" in batch_norm
        and "m.weight" not in batch_norm
    )
    # Not every torch class with 'Norm' in its name is a MindSpore norm layer (RMSNorm).
    assert "m.weight" in norm and "m.gamma" not in norm


@pytest.mark.parametrize(
    "test",
    [
        pytest.param(
            "classname.find('Norm') != -1", id="a-class-of-the-module-matches"
        ),
        pytest.param("classname.find('Linear') == -1", id="the-branch-where-it-failed"),
    ],
)
def test_class_name_tests_that_prove_nothing_leave_the_name(test: str) -> None:
    code = _convert(
        "import torch.nn as nn\n\nclass MyNorm(nn.Module):\n    pass\n\n"
        "def init(m):\n    classname = m.__class__.__name__\n"
        f"    if {test}:\n        nn.init.zeros_(m.bias)\n"
    )
    assert "m.bias" in code and "m.beta" not in code


def test_a_seeded_generator_and_the_draws_given_it_use_the_companion() -> None:
    code = _convert(
        "import torch\n\ng = torch.Generator()\ng.manual_seed(42)\n"
        "idx = torch.randperm(10, generator=g).tolist()\n"
        "u = torch.rand(2, 3, generator=g)\nv = torch.rand(2, 3)\n"
    )
    assert "g = ms_aux.Generator()\ng.manual_seed(42)\n" in code
    assert "idx = ms_aux.randperm(10, generator=g).tolist()" in code
    assert "u = ms_aux.rand(2, 3, generator=g)" in code
    assert "v = ops.rand((2, 3))" in code
    assert "import torch" not in code
