"""TM401-TM403 and their findings: before/after cases, and cases that must stay as they are."""

from __future__ import annotations

import pytest
from torch2ms.migrator.context import Options
from torch2ms.migrator.convert import convert_source

HEAD = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"

REWRITES = [
    # an entry of a dict read with a string is the same tensor each time it is read
    ("state['step'].add_(1)", "ops.assign(state['step'], state['step'].add(1))"),
    ("u = x.mul(b).add_(g).sign_()", "u = x.mul(b).add(g).sign()"),
    ("y = torch.abs(x)", "y = ops.abs(x)"),
    # out= writes the result into the named tensor (resized and cast as torch does)
    ("y = torch.abs(a, out=c)", "y = ms_aux.write_out(c, ops.abs(a))"),
    ("x.eq_(y)", "ops.assign(x, x.eq(y))"),
    ("y = torch.acosh(input=x)", "y = ops.acosh(x)"),
    ("y = torch.sum(x, 1, True)", "y = ops.sum(x, 1, True)"),
    ("y = torch.argmin(x, dim=1)", "y = ops.argmin(x, axis=1)"),
    # generator=None is torch's default stream
    (
        "y = torch.multinomial(w, 2, generator=None)",
        "y = ops.multinomial(w, 2).astype(mindspore.int64)",
    ),
    # a companion entry takes torch's parameters in torch's order: spread arguments reach it
    ("y = x.split_with_sizes(*args)", "y = ms_aux.split_with_sizes(x, *args)"),
    # a generator of the program's is the companion's, which draws from it
    (
        "y = torch.multinomial(w, 2, generator=g)",
        "y = ms_aux.multinomial(w, 2, generator=g)",
    ),
    ("y = torch.flatten(x)", "y = ops.flatten(x, start_dim=0)"),
    ("y = torch.transpose(x, 0, 1)", "y = ops.swapaxes(x, axis0=0, axis1=1)"),
    ("y = torch.zeros(2, 3, device=d)", "y = ops.zeros((2, 3))"),
    ("y = torch.cat([a, b], dim=1)", "y = ops.cat([a, b], axis=1)"),
    ("y = torch.var(x, 1, unbiased=False)", "y = ops.var(x, axis=1, ddof=0)"),
    ("y = torch.std(x)", "y = ops.std(x, ddof=1)"),
    ("y = F.relu(x, inplace=False)", "y = ops.relu(x)"),
    ("y = F.softmax(x, dim=-1)", "y = ops.softmax(x, axis=-1)"),
    ("y = F.max_pool2d(x, 3)", "y = ops.max_pool2d(x, 3, stride=3)"),
    ("y = F.smooth_l1_loss(a, b)", "y = ops.smooth_l1_loss(a, b, reduction='mean')"),
    ("m = nn.Linear(4, 3)", "m = nn.Dense(4, 3)"),
    ("m = nn.Linear(4, 3, False)", "m = nn.Dense(4, 3, has_bias=False)"),
    (
        "m = nn.Conv2d(3, 8, 3, 1, 1)",
        "m = nn.Conv2d(3, 8, 3, 1, padding=1, pad_mode='pad', has_bias=True)",
    ),
    (
        "m = nn.Conv2d(3, 8, 3, padding=(1, 2))",
        "m = nn.Conv2d(3, 8, 3, padding=(1, 1, 2, 2), pad_mode='pad', has_bias=True)",
    ),
    ("m = nn.LayerNorm(16)", "m = nn.LayerNorm((16,), epsilon=1e-05)"),
    ("m = nn.LayerNorm(dim, eps=1e-6)", "m = nn.LayerNorm((dim,), epsilon=1e-6)"),
    ("m = nn.GELU(approximate='tanh')", "m = nn.GELU(approximate=True)"),
    ("m = nn.GELU(approximate=mode)", 'm = nn.GELU(approximate=mode == "tanh")'),
    ("m = nn.LeakyReLU(0.1, inplace=False)", "m = nn.LeakyReLU(alpha=0.1)"),
    # inplace=True writes into the input: the companion class does, MindSpore's does not.
    ("m = nn.LeakyReLU(0.1, inplace=True)", "m = ms_aux.LeakyReLU(0.1, inplace=True)"),
    ("y = F.relu(x, inplace=True)", "y = ms_aux.relu(x, inplace=True)"),
    ("act = nn.Hardtanh", "act = ms_aux.Hardtanh"),
    # torch's deprecated size_average/reduce, as literals, select the reduction.
    ("f = nn.MSELoss(False, True)", "f = nn.MSELoss(reduction='sum')"),
    (
        "y = F.l1_loss(a, b, None, False, 'mean')",
        "y = ops.l1_loss(a, b, reduction='none')",
    ),
    ("f = torch.nn.modules.loss.L1Loss()", "f = nn.L1Loss()"),
    ("m = nn.Dropout(0.1)", "m = nn.Dropout(p=0.1)"),
    ("m = nn.AvgPool2d(2)", "m = nn.AvgPool2d(2, stride=2, pad_mode='pad')"),
    # No CPU kernel for the MindSpore class: the companion class computes with ops.cross_entropy.
    ("m = nn.CrossEntropyLoss()", "m = ms_aux.CrossEntropyLoss()"),
    (
        "o = torch.optim.SGD(p, lr=0.1, momentum=0.9, foreach=True)",
        "o = optim.SGD(p, lr=0.1, momentum=0.9)",
    ),
    (
        "s = torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=10)",
        "s = optim.lr_scheduler.CosineAnnealingLR(o, T_max=10)",
    ),
    ("t = x.dtype == torch.float16", "t = x.dtype == mindspore.float16"),
    ("n = x.size()", "n = x.shape"),
    ("n = x.size(-1)", "n = x.shape[-1]"),
    ("n = x.dim()", "n = x.ndim"),
    (
        "y = x.view(2, -1).permute(1, 0).contiguous()",
        "y = x.view(2, -1).permute(1, 0).contiguous()",
    ),
    ("y = x.relu()", "y = ops.relu(x)"),
    ("y = x.float().std(1)", "y = ops.std(x.float(), axis=1, ddof=1)"),
    ("y = x.sum(dim=1).repeat(1, 2)", "y = ops.tile(x.sum(dim=1), dims=(1, 2))"),
    ("y = x.clone()", "y = x.copy()"),
    (
        "ok = isinstance(m, (nn.Conv2d, nn.BatchNorm2d))",
        "ok = isinstance(m, (nn.Conv2d, nn.BatchNorm2d))",
    ),
    ("f = torch.jit.is_scripting()", "f = False"),
    ("x.zero_()", "ops.assign(x, ops.zeros_like(x))"),
    ("d = (a.sqrt() / b).add_(eps)", "d = (a.sqrt() / b).add(eps)"),
    (
        "m.div_(m.mean().clamp_(min=1e-3))",
        "ops.assign(m, m.div(m.mean().clamp(min=1e-3)))",
    ),
    (
        "exp_avg.mul_(b1).add_(g, alpha=1 - b1)",
        "ops.assign(exp_avg, ops.assign(exp_avg, exp_avg.mul(b1)).add(g, alpha=1 - b1))",
    ),
    (
        "@torch.fx.wrap\ndef f(x):\n    return torch.abs(x)",
        "def f(x):\n    return ops.abs(x)",
    ),
    # A layer class given as a default that the function only calls in ways MindSpore's takes.
    (
        "def block(act_layer=nn.ReLU, norm=nn.BatchNorm2d):\n    return act_layer(), norm(8)",
        "def block(act_layer=nn.ReLU, norm=nn.BatchNorm2d):\n    return act_layer(), norm(8)",
    ),
    (
        "def head(dim, fc=nn.Linear):\n    return fc(dim, 10)",
        "def head(dim, fc=nn.Dense):\n    return fc(dim, 10)",
    ),
    (
        "def fuse(m: nn.Conv2d) -> nn.Linear:\n    pass",
        "def fuse(m: nn.Conv2d) -> nn.Dense:\n    pass",
    ),
    ("conv: nn.Conv2d = make()", "conv: nn.Conv2d = make()"),
]


def _convert(line: str, target: str = "cpu"):
    return convert_source(HEAD + "\n" + line + "\n", "case.py", Options(target=target))


def _body(code: str) -> str:
    return "\n".join(
        text
        for text in code.splitlines()
        if text
        and not text.startswith(("import ", "from ", "# torch2ms"))
        and ".set_train(" not in text
    )


@pytest.mark.parametrize(("before", "after"), REWRITES, ids=[b for b, _ in REWRITES])
def test_rewrite(before: str, after: str | None) -> None:
    result = _convert(before)
    if after is None:
        assert "torch" in result.code
        assert any(f.rule == "TM942" for f in result.findings)
        return
    assert _body(result.code) == after
    assert "torch" not in result.code
    assert not [f for f in result.findings if f.severity == "error"], result.findings
    assert convert_source(result.code, "case.py").code == result.code


def test_a_method_the_idiom_refuses_goes_to_the_companion_entry() -> None:
    """`t.median()` without dim: MindSpore's median reduces one axis; the companion entry
    (torch.median's) takes torch's call where the receiver can only be a tensor."""
    result = _convert("y = torch.abs(x).median()")
    assert _body(result.code) == "y = ms_aux.torch_median(ops.abs(x))"
    assert not result.findings


def test_a_refused_method_of_an_unknown_receiver_is_reported() -> None:
    """`df.median()` may be a DataFrame's: no companion entry, a finding at the line."""
    result = _convert("y = df.median()")
    assert _body(result.code) == "y = df.median()"
    assert [f.rule for f in result.findings] == ["TM941"]
    assert "median" in result.findings[0].message


def test_embedding_keeps_torch_argument_order() -> None:
    # The nn rules may add MindSpore's initializer after the mapped arguments.
    assert _body(_convert("m = nn.Embedding(10, 4, padding_idx=0)").code).startswith(
        "m = nn.Embedding(10, 4, padding_idx=0"
    )


def test_multiline_call_keeps_its_layout() -> None:
    before = "m = nn.Conv2d(\n    3,  # in\n    16, 3,\n    padding=1,\n)"
    after = "m = nn.Conv2d(\n    3,  # in\n    16, 3,\n    padding=1,\n    pad_mode='pad',\n    has_bias=True,\n)"
    assert _body(_convert(before).code) == after


def test_initializer() -> None:
    code = _convert("nn.init.normal_(layer.weight, std=0.02)").code
    assert "layer.weight.set_data(mindspore.common.initializer.initializer(" in code
    assert (
        "Normal(sigma=0.02)" in code
        and "layer.weight.shape, layer.weight.dtype" in code
    )


def test_placement_dict_is_dropped_with_a_warning() -> None:
    source = "def f(device=None, dtype=None):\n    dd = {'device': device, 'dtype': dtype}\n    return nn.Linear(2, 3, **dd)"
    result = _convert(source)
    assert "nn.Dense(2, 3)" in result.code
    assert [f.severity for f in result.findings if f.rule == "TM941"] == ["warning"]


def test_ascend_target_uses_mint() -> None:
    assert (
        _body(_convert("y = F.gelu(x)", target="ascend").code)
        == "y = mint.nn.functional.gelu(x)"
    )


UNTOUCHED = [
    # an out= item may be a copy in MindSpore: nothing would be written into it
    ("y = torch.abs(a, out=c[0])", "TM941"),
    # Refused calls of layers without a companion class (those with one become `ms_aux.X(...)`).
    ("m = nn.ConvTranspose3d(3, 8, 3, padding_mode='reflect')", "TM941"),
    ("m = nn.MultiLabelSoftMarginLoss(size_average=flag)", "TM941"),
    ("m = nn.ConvTranspose3d(3, 8, 3, padding_mode=mode)", "TM941"),
    ("m = nn.GaussianNLLLoss(*args)", "TM941"),
    ("torch.cuda.current_device()", "TM940"),
    ("y = torch.take(x, idx)", "TM942"),
    ("act = nn.Softmax2d", "TM900"),
    ("f = nn.MultiLabelSoftMarginLoss(reduce=flag)", "TM941"),
    ("y = f(x, inplace=True).clamp_(0, 1)", "TM941"),
    ("y = x.view(-1).add_(1)", "TM941"),
    # Layer classes as values, without a companion class (those with one become `ms_aux.X`).
    ("norm = nn.LazyBatchNorm3d", "TM900"),
    ("def block(norm=nn.ConvTranspose3d, **dd):\n    return norm(8, 8, 3, **dd)", "TM941"),
    ("def block(norm=nn.MaxPool3d):\n    return norm(3, padding_mode=m)", "TM941"),
    ("m = Block(norm_layer=nn.ConvTranspose3d)", "TM941"),
]


@pytest.mark.parametrize(("before", "rule"), UNTOUCHED, ids=[b for b, _ in UNTOUCHED])
def test_left_untranslated_with_a_finding(before: str, rule: str | None) -> None:
    result = _convert(before)
    assert [f for f in result.findings if f.severity == "error"]
    if rule is not None:
        assert rule in {f.rule for f in result.findings}
    assert before in result.code or "torch" in _body(result.code)


# Methods numpy has too, on a receiver not proven a tensor: the companion decides at run time.
RUN_TIME = [
    ("y = x.std(1)", "y = ms_aux.tensor_std(x, 1)"),
    ("y = arr.dot(b)", "y = ms_aux.tensor_dot(arr, b)"),
    ("y = x.repeat(2, 1)", "y = ms_aux.tensor_repeat(x, 2, 1)"),
    # Part of a tensor updated in place: the new part is stored back.
    ("x[i].add_(1)", "ms_aux.assign_item(x, i, x[i].add(1))"),
]


@pytest.mark.parametrize(("before", "after"), RUN_TIME, ids=[b for b, _ in RUN_TIME])
def test_methods_numpy_has_too_decide_at_run_time(before: str, after: str) -> None:
    result = _convert(before)
    assert after in result.code
    assert not [f for f in result.findings if f.severity == "error"]


NOT_TORCH = [
    "import re\nimport torch\n\nk = re.sub('a', 'b', s)\n",
    "import math\nimport torch\n\nr = math.sqrt(2.0)\n",
    "import torch\n\nseen = set()\nseen.add(x)\nparts = text.split(',')\n",
    "import torch\n\ntotal = arr.sum(axis=0)\nflat = arr.reshape(-1)\n",
]


@pytest.mark.parametrize("source", NOT_TORCH)
def test_other_libraries_are_left_alone(source: str) -> None:
    result = convert_source(source, "case.py")
    body = source.split("\n\n", 1)[1]
    assert body in result.code
    assert not result.findings


def test_calls_on_imported_modules_are_not_counted_as_tensor_methods() -> None:
    source = (
        "import re\nimport torch\nfrom os import path\n\n"
        "def f(x, s):\n    import math\n    k = re.sub('a', 'b', s).split(',')\n"
        "    p = path.join('a', 'b')\n    return math.sqrt(2.0), x.size(1)\n"
    )
    result = convert_source(source, "case.py")
    assert (result.api_total, result.api_converted) == (1, 1)
