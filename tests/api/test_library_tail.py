"""Forms a library converted whole uses that leave no torch behind.

- an in-place method on a new temporary (`torch.zeros(n).scatter_add_(...)`,
  `torch.empty(n).uniform_(a, b).log_()`) is its out-of-place form: nothing else holds the tensor;
- `x.requires_grad_(flag)` with a flag known at run time goes through the companion in a module
  that never runs backward; where the module runs backward it stays reported;
- weight normalisation, `torch.isin` and `torch.cuda.device_count` are companion entries.

Each output compiles, imports no torch, and converting it again changes nothing.
"""

from __future__ import annotations

import re

import pytest
from torch2ms.migrator.context import Options
from torch2ms.migrator.convert import convert_source

CASES = {
    "scatter_add_on_new_tensor": (
        (
            "import torch\n\n\ndef count(experts, mask, n, k, total):\n"
            "    total = total + torch.zeros(n, dtype=torch.float32).scatter_add_(\n"
            "        0, experts.reshape(-1), mask.repeat_interleave(k))\n"
            "    return total\n"
        ),
        "ms_aux.scatter_add(ops.zeros(n, dtype=mindspore.float32), 0, ",
    ),
    "log_of_a_fresh_fill": (
        (
            "import torch\n\n\ndef draw(n, low, high):\n"
            "    return torch.empty(n).uniform_(low, high).log_()\n"
        ),
        "(ops.rand_like(ops.zeros(n)) * (high - low) + low).log()",
    ),
    "requires_grad_flag": (
        (
            "import torch\n\n\ndef resize(old, new):\n"
            "    flag = old.weight.requires_grad\n    new.requires_grad_(flag)\n"
            "    return torch.zeros(1)\n"
        ),
        "ms_aux.requires_grad_(new, flag)",
    ),
    "weight_norm_both_forms": (
        (
            "import torch\nfrom torch import nn\n\n\ndef apply(conv, layers):\n"
            "    weight_norm = nn.utils.weight_norm\n"
            '    if hasattr(nn.utils.parametrizations, "weight_norm"):\n'
            "        weight_norm = nn.utils.parametrizations.weight_norm\n"
            '    conv = weight_norm(conv, name="weight", dim=2)\n'
            "    for layer in layers:\n        nn.utils.remove_weight_norm(layer)\n"
            "    torch.nn.utils.parametrize.remove_parametrizations(conv, 'weight')\n"
            "    return conv\n"
        ),
        "weight_norm = ms_aux.parametrized_weight_norm",
    ),
    "isin_and_device_count": (
        (
            "import torch\n\n\ndef check(ids, special, pad, placed):\n"
            "    if len(placed) > 1 and torch.cuda.device_count() > 1:\n        return None\n"
            "    return torch.isin(ids, special), torch.isin(ids, pad).any()\n"
        ),
        "ms_aux.isin(ids, special), ms_aux.isin(ids, pad).any()",
    ),
    "torch_looked_up_by_name": (
        (
            "import torch\n\n\ndef dtypes(config, name):\n"
            "    if hasattr(torch, name):\n        return getattr(torch, name)\n"
            "    return getattr(torch, config.router_dtype, None)\n"
        ),
        "getattr(ms_aux.torch_namespace, config.router_dtype, None)",
    ),
    # The companion entry a torch call became is as certainly a tensor as the call was: the
    # method on it stays as the first conversion wrote it.
    "method_on_a_companion_result": (
        (
            "import torch\nfrom torch import nn\n\n\ndef pool(mask, k):\n"
            "    return nn.functional.max_pool1d(mask.float().unsqueeze(1), kernel_size=k,"
            " stride=k).squeeze(1).long()\n"
        ),
        ").squeeze(1).long()",
    ),
    "detach_function": (
        (
            "import torch\n\n\ndef cut(inputs):\n"
            "    inputs = torch.detach(inputs)\n    return inputs\n"
        ),
        "inputs = ops.stop_gradient(inputs)",
    ),
    # A torch-only API imported under a guard that binds None: the check of it answers that the
    # converted program lacks it, and the plain path remains.
    "optional_torch_only_import": (
        (
            "import torch\n\n\ndef scan(a, b, use_scan):\n    try:\n"
            "        from torch._higher_order_ops.associative_scan import associative_scan\n"
            "    except ImportError:\n        associative_scan = None\n"
            "    if use_scan and associative_scan is not None:\n"
            "        _, states = associative_scan(lambda x, y: x * y, (a, b), dim=2)\n"
            "    else:\n        states = torch.cumsum(a * b, dim=2)\n    return states\n"
        ),
        "    states = ops.cumsum(a * b, axis=2)\n",
    ),
    "masked_reductions": (
        (
            "import torch\n\n\ndef norm(x, m):\n"
            "    mean = torch.masked.mean(x, mask=m, dim=(2, 3), keepdim=True)\n"
            "    var = torch.masked.var(x, mask=m, dim=(2, 3), keepdim=True, unbiased=False)\n"
            "    return (x - mean) / torch.sqrt(var + 1e-5)\n"
        ),
        "var = ms_aux.masked_var(x, mask=m, dim=(2, 3), keepdim=True, unbiased=False)",
    ),
    "log_of_a_fresh_fill_like": (
        (
            "import torch\n\n\ndef draw(a, low, high):\n"
            "    return torch.empty_like(a).uniform_(low, high).log_()\n"
        ),
        "(ops.rand_like(ops.zeros_like(a)) * (high - low) + low).log()",
    ),
    "gumbel_noise": (
        (
            "import torch\n\n\ndef noise(logits):\n"
            "    return torch.distributions.gumbel.Gumbel(0, 1).rsample(logits.shape)\n"
        ),
        "ms_aux.Gumbel(0, 1).rsample(logits.shape)",
    ),
    # A decorator of Module classes wraps the method torch calls: MindSpore calls `construct`.
    "forward_of_a_module_class_parameter": (
        (
            "import torch\nfrom torch import nn\n\n\n"
            "def wrapper(experts_class: type[nn.Module]) -> type[nn.Module]:\n"
            "    original_forward = experts_class.forward\n\n"
            "    def forward(self, *args):\n        return original_forward(self, *args)\n\n"
            "    experts_class.forward = forward\n    return experts_class\n\n\n"
            "def other(obj):\n    return obj.forward, torch.zeros(1)\n"
        ),
        "    original_forward = experts_class.construct\n",
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_converted_without_torch(name: str) -> None:
    source, expected = CASES[name]
    result = convert_source(source, "case.py", Options())
    compile(result.code, "case.py", "exec")
    assert expected in result.code, result.code
    code = "\n".join(
        line for line in result.code.splitlines() if not line.lstrip().startswith("#")
    )
    assert re.search(r"\btorch\b", code) is None, result.code
    again = convert_source(result.code, "case.py", Options())
    assert again.code == result.code


def test_requires_grad_flag_stays_reported_where_the_module_runs_backward() -> None:
    source = (
        "import torch\n\n\ndef step(x, flag):\n    x.requires_grad_(flag)\n"
        "    y = (x * 2).sum()\n    y.backward()\n    return x.grad\n"
    )
    result = convert_source(source, "case.py", Options())
    assert "ms_aux.requires_grad_" not in result.code
    assert "x.requires_grad_(flag)" in result.code


def test_in_place_on_a_named_tensor_keeps_its_assignment() -> None:
    """A fresh local tensor is rebound to the new value (exact under differentiation); one the
    function was given is written back with `ops.assign`, so its caller sees the update."""
    source = (
        "import torch\n\n\ndef count(index, src):\n    y = torch.zeros(3)\n"
        "    y.scatter_add_(0, index, src)\n    return y\n"
    )
    result = convert_source(source, "case.py", Options())
    assert "(y := ms_aux.scatter_add(y, 0, index, src))" in result.code
    given = source.replace("count(index, src)", "count(y, index, src)").replace(
        "    y = torch.zeros(3)\n", ""
    )
    result = convert_source(given, "case.py", Options())
    assert "ops.assign(y, ms_aux.scatter_add(y, 0, index, src))" in result.code


def test_a_torch_only_class_in_type_checks_alone_needs_no_torch() -> None:
    """`isinstance(mask, BlockMask)` is False for every value the converted program has: the
    stand-in is reported as a warning, and the file does not need torch; calling the class
    still does."""
    from torch2ms.migrator.convert import imports_torch

    source = (
        "import torch\nfrom torch.nn.attention.flex_attention import BlockMask\n\n\n"
        "def attend(mask, x):\n    if isinstance(mask, BlockMask):\n        return None\n"
        "    if not isinstance(mask, (BlockMask, torch.Tensor)):\n        return x\n"
        "    return torch.relu(x)\n"
    )
    result = convert_source(source, "case.py", Options())
    assert not imports_torch(result.code), result.code
    stand_ins = [f for f in result.findings if f.rule == "TM900"]
    assert len(stand_ins) == 2
    assert all(f.severity == "warning" for f in stand_ins)
    assert convert_source(result.code, "case.py", Options()).code == result.code
    called = source + "\n\ndef build(m):\n    return BlockMask.from_kv_blocks(m)\n"
    assert imports_torch(convert_source(called, "case.py", Options()).code)


def test_a_companion_function_is_not_taken_for_a_module_method() -> None:
    """`ms_aux.register_parameter(module, ...)`, as a first conversion writes it, converts again to
    itself where the statement still holds torch code: the companion module is no Module."""
    source = (
        "import torch\nfrom torch import nn\n\n\ndef tie(module, name, p, mesh):\n"
        "    module.register_parameter(\n"
        "        name, nn.Parameter(torch.distributed.tensor.DTensor.from_local(p, mesh))\n"
        "    )\n    return module\n"
    )
    result = convert_source(source, "case.py", Options())
    assert "ms_aux.register_parameter(module, name, " in result.code, result.code
    assert convert_source(result.code, "case.py", Options()).code == result.code
