"""TM412 and the plumbing companion entries: what each torch-only plumbing call becomes."""

from __future__ import annotations

import pytest
from conftest import convert_checked


def _body(code: str) -> str:
    """The converted code after its import block."""
    lines = code.splitlines()
    first = next(
        i
        for i, line in enumerate(lines)
        if line and not line.startswith(("import ", "from ", "#"))
    )
    return "\n".join(lines[first:]) + "\n"


# (torch statement, its conversion): each is certain, and needs no torch afterwards.
CONVERTED = [
    ("x = torch.jit.is_scripting()", "x = False"),
    ("x = torch.get_default_dtype()", "x = mindspore.float32"),
    ("m = torch.jit.script(model)", "m = ms_aux.jit_script(model)"),
    (
        "m = torch.compile(model, backend=b, mode=m, **kw)",
        "m = ms_aux.compile(model, backend=b, mode=m, **kw)",
    ),
    ("x = torch.compiler.is_compiling()", "x = ms_aux.is_compiling()"),
    (
        "y = torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False)",
        "y = ms_aux.checkpoint(block, x, use_reentrant=False)",
    ),
    (
        "sd = torch.hub.load_state_dict_from_url(url, map_location='cpu')",
        "sd = ms_aux.load_state_dict_from_url(url, map_location='cpu')",
    ),
    ("d = torch.hub.get_dir()", "d = ms_aux.hub_get_dir()"),
    ("h = torch.hub.HASH_REGEX.search(name)", "h = ms_aux.HASH_REGEX.search(name)"),
    ("p = torch.hub.urlparse(url)", "p = ms_aux.hub_urlparse(url)"),
    ("print(torch.device(name))", "print(ms_aux.device(name))"),
    ("e = torch.finfo(x.dtype).eps", "e = ms_aux.finfo(x.dtype).eps"),
    (
        "t = torch.finfo(torch.float16).tiny",
        "t = ms_aux.finfo(mindspore.float16).tiny",
    ),
    ("a = torch.cuda.is_available()", "a = ms_aux.cuda_is_available()"),
    ("a = torch.accelerator.is_available()", "a = ms_aux.accelerator_is_available()"),
    ("a = torch.backends.mps.is_available()", "a = ms_aux.mps_is_available()"),
    ("a = torch.is_autocast_enabled()", "a = ms_aux.is_autocast_enabled()"),
    ("a = torch.distributed.is_available()", "a = ms_aux.dist_is_available()"),
    ("a = torch.distributed.is_initialized()", "a = ms_aux.dist_is_initialized()"),
    ("r = torch.distributed.get_rank()", "r = ms_aux.dist_get_rank()"),
    ("n = torch.distributed.get_world_size()", "n = ms_aux.dist_get_world_size()"),
]


@pytest.mark.parametrize(("before", "after"), CONVERTED, ids=[c[0] for c in CONVERTED])
def test_plumbing_call_is_converted(before: str, after: str) -> None:
    result = convert_checked(f"import torch\n\n{before}\n")
    assert _body(result.code) == after + "\n"
    assert "import torch" not in result.code
    if "ms_aux." in after:
        assert "import ms_aux" in result.code
    assert not [f for f in result.findings if f.rule.startswith("TM9")]


def test_decorators_and_no_effect_statements_are_removed() -> None:
    source = (
        "import torch\n\ntorch.fx.wrap('helper')\n\n\n@torch.jit.script\ndef gelu(x):\n"
        "    return x * 0.5\n\n\n@torch.compile(fullgraph=True)\ndef double(x):\n    return x * 2\n\n\n"
        "def tune(on):\n    if on:\n        torch._C._jit_set_profiling_executor(False)\n"
        "        torch._C._jit_set_profiling_mode(False)\n    return on\n"
    )
    result = convert_checked(source)
    assert result.code == (
        "\n\ndef gelu(x):\n    return x * 0.5\n\n\ndef double(x):\n    return x * 2\n\n\n"
        "def tune(on):\n    if on:\n        pass\n    return on\n"
    )
    assert "TM412" in result.rules_applied


@pytest.mark.parametrize(
    ("region", "entry"),
    [
        ("torch.autocast(device_type='cuda', enabled=False)", "ms_aux.autocast"),
        (
            "torch.amp.autocast(device_type=x.device.type, enabled=False)",
            "ms_aux.autocast",
        ),
        ("torch.autocast('cpu', None, False)", "ms_aux.autocast"),
        ("torch.amp.autocast('cuda', dtype=torch.float16)", "ms_aux.autocast"),
        ("torch.cuda.amp.autocast()", "ms_aux.cuda_autocast"),
    ],
)
def test_full_precision_autocast_becomes_the_no_op(region: str, entry: str) -> None:
    source = f"import torch\n\ndef f(x):\n    with {region}:\n        return x * 2\n"
    result = convert_checked(source)
    assert f"with {entry}(" in result.code and "import torch" not in result.code
    assert ".device" not in result.code  # a device read from a tensor is dropped


def test_a_device_type_that_is_not_read_from_names_is_kept() -> None:
    source = (
        "import torch\n\ndef f(x):\n"
        "    with torch.autocast(device_type=pick(), enabled=False):\n        return x\n"
    )
    code = convert_checked(source).code
    assert "with ms_aux.autocast(device_type=pick(), enabled=False):" in code


@pytest.mark.parametrize(
    "region",
    [
        "torch.autocast(device_type='cpu', dtype=torch.bfloat16)",
        "torch.amp.autocast(device_type=x.device.type)",
        "torch.autocast('cpu', enabled=flag)",
    ],
)
def test_reduced_precision_autocast_stays_reported(region: str) -> None:
    source = f"import torch\n\ndef f(x):\n    with {region}:\n        return x * 2\n"
    result = convert_checked(source)
    # The region stays torch's (a tensor's device type read inside it is written the way that
    # reads on either framework's tensors).
    assert "ms_aux.autocast" not in result.code and "import torch" in result.code
    assert "with torch." in result.code
    assert [f.rule for f in result.findings if f.rule == "TM940"] == ["TM940"]


def test_cuda_autocast_on_the_gpu_target_stays_reported() -> None:
    source = "import torch\n\ndef f(x):\n    with torch.cuda.amp.autocast():\n        return x * 2\n"
    result = convert_checked(source, target="gpu")
    assert "ms_aux" not in result.code


@pytest.mark.parametrize(
    ("use", "hint"),
    [
        ("torch.cuda.max_memory_allocated()", "max_memory_allocated"),
        ("torch.set_num_threads(2)", "runtime_num_threads"),
        ("torch.distributed.barrier()", "barrier"),
    ],
)
def test_plumbing_that_stays_is_reported_with_the_idiom(use: str, hint: str) -> None:
    result = convert_checked(f"import torch\n\n{use}\n")
    assert "import torch" in result.code
    assert any(hint in f.hint for f in result.findings if f.rule in ("TM900", "TM940"))
