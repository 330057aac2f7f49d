"""Tensor methods derived from their `torch.*` function, served by companion entries, and
in-place updates of views: what the converter writes, and the findings it reports."""

from __future__ import annotations

import pytest
from conftest import convert_checked

HEAD = "import torch\nx = torch.ones(2, 3)\n"

REWRITES = [
    # derived from torch.nanmean's row: dim -> axis, keepdim -> keepdims
    ("y = x.nanmean(dim=1, keepdim=True)", "y = ops.nanmean(x, axis=1, keepdims=True)"),
    ("y = x.fix()", "y = ops.trunc(x)"),
    # torch's other spellings of the split points
    (
        "y = x.tensor_split(sections=2, dim=1)",
        "y = ops.tensor_split(x, indices_or_sections=2, axis=1)",
    ),
    # the collected sizes given by name
    ("y = x.expand(size=(4, 2, 3))", "y = x.expand((4, 2, 3))"),
    # placement and requires_grad= dropped, the companion takes torch's sizes
    (
        "y = x.new_ones(2, 3, device='cpu', requires_grad=True)",
        "y = ms_aux.new_ones(x, 2, 3, device='cpu')",
    ),
    ("y = x.kthvalue(2, dim=0)", "y = ms_aux.kthvalue(x, 2, dim=0)"),
    ("v = x.topk(2).values", "v = ms_aux.topk(x, 2)[0]"),
    ("u, s, v = x.svd(some=False)", "u, s, v = ms_aux.legacy_svd(x, some=False)"),
    # in place: the out-of-place companion entry written back
    (
        "x.scatter_reduce_(0, i, s, reduce='amax')",
        "ops.assign(x, ms_aux.scatter_reduce(x, 0, i, s, reduce='amax'))",
    ),
    ("x.polygamma_(1)", "ops.assign(x, ms_aux.tensor_polygamma(x, 1))"),
    ("c = x.cfloat()", "c = x.astype(dtype=mindspore.complex64)"),
    # the idiom where it holds, the companion entry for torch's other norms
    ("n = x.norm(dim=1)", "n = x.norm(dim=1)"),
    ("n = x.norm(p='fro')", "n = ms_aux.tensor_norm(x, p='fro')"),
    ("n = x.norm(2, (0, 1))", "n = ms_aux.tensor_norm(x, 2, (0, 1))"),
    ("x.requires_grad_(False)", "ms_aux.requires_grad_(x, False)"),
    ("r = x.copy_(other=y, non_blocking=True)", "r = x.copy_(src=y)"),
]


def _body(code: str) -> str:
    lines = code.splitlines()
    return "\n".join(
        line
        for line in lines[lines.index("x = ops.ones((2, 3))") + 1 :]
        if not line.startswith("# torch2ms")
    )


@pytest.mark.parametrize(("before", "after"), REWRITES, ids=[b for b, _ in REWRITES])
def test_rewrite(before: str, after: str) -> None:
    result = convert_checked(HEAD + before + "\n")
    assert _body(result.code) == after
    assert "torch" not in result.code
    assert not result.findings, [f.message for f in result.findings]


def test_update_of_a_view_of_a_temporary_is_written_into_the_view() -> None:
    result = convert_checked(
        "import torch\nv = torch.ones(4).reshape(2, 2)\nv.exp_()\n"
    )
    assert "ms_aux.assign_view(v, v.exp())" in result.code
    assert not result.findings


def test_update_of_a_view_of_a_named_tensor_is_reported() -> None:
    source = "import torch\nbase = torch.ones(4)\nv = base.view(2, 2)\nr = v.mul_(2)\n"
    result = convert_checked(source)
    assert "r = ms_aux.assign_view(v, v.mul(2))" in result.code
    assert [(f.rule, f.line) for f in result.findings] == [("TM947", 4)]


def test_update_of_a_name_never_bound_to_a_view_keeps_ops_assign() -> None:
    result = convert_checked("import torch\ny = torch.ones(4)\ny.exp_()\n")
    assert "ops.assign(y, y.exp())" in result.code


def test_a_method_the_object_has_with_other_arguments_is_left_alone() -> None:
    # pandas' DataFrame.diff(periods=...): not torch's parameters, so not a tensor's diff
    result = convert_checked("import torch\nd = frame.diff(periods=2)\n")
    assert "frame.diff(periods=2)" in result.code


def test_shape_changing_update_of_an_unshared_name_rebinds_it() -> None:
    source = (
        "import torch\na = torch.ones(2, 3)\nr = a.transpose_(dim1=0, dim0=1)\na.t_()\n"
    )
    result = convert_checked(source)
    assert "r = (a := ops.swapaxes(a, axis1=0, axis0=1))" in result.code
    assert "(a := ops.t(a))" in result.code
    assert not result.findings


def test_shape_changing_update_of_a_shared_name_is_reported() -> None:
    source = "import torch\na = torch.ones(2, 3)\nb = a\na.t_()\n"
    result = convert_checked(source)
    assert "a.t_()" in result.code
    assert [f.rule for f in result.findings] == ["TM940"]


def test_shape_changing_update_of_a_comprehension_variable_is_reported() -> None:
    source = "import torch\nr = [x.t_() for x in xs]\n"
    result = convert_checked(source)
    assert "x.t_()" in result.code
    assert [f.rule for f in result.findings] == ["TM940"]


def test_backend_settings_read_back_keep_their_assignments() -> None:
    source = (
        "import torch\ntorch.backends.cudnn.deterministic = True\n"
        "flag = torch.backends.cudnn.deterministic\n"
    )
    result = convert_checked(source)
    assert "ms_aux.cudnn_deterministic = True" in result.code
    assert "flag = ms_aux.cudnn_deterministic" in result.code


def test_backend_settings_never_read_are_removed() -> None:
    result = convert_checked("import torch\ntorch.backends.cudnn.benchmark = True\n")
    assert "benchmark" not in result.code.replace("# torch2ms", "")


def test_disabled_cpu_autocast_is_a_region_without_casts() -> None:
    source = (
        "import torch\nwith torch.cpu.amp.autocast(enabled=False):\n    y = x * x\n"
    )
    result = convert_checked(source)
    assert "with ms_aux.cpu_autocast(enabled=False):" in result.code
    assert "torch" not in result.code


def test_shape_changing_update_of_a_fresh_name_handed_on_after_rebinds_it() -> None:
    source = (
        "import torch\n\ndef band(a, b):\n"
        "    y = torch.matmul(a, b)\n    y.unsqueeze_(2)\n    return torch.cat([y, y], dim=2)\n"
        "\ndef mask(m, e):\n"
        "    z = torch.einsum('bq,bk->bqk', m, e)\n    z.unsqueeze_(1)\n    return z\n"
    )
    result = convert_checked(source)
    assert "(y := ops.unsqueeze(y, 2))" in result.code
    # einsum may return a view: a new tensor object all the same, whose shape is its own.
    assert "(z := ops.unsqueeze(z, 1))" in result.code
    assert not result.findings


def test_shape_changing_update_of_a_loop_variable_is_reported() -> None:
    # The items are held by the other names too: rebinding `x` would leave them unchanged.
    source = (
        "import torch\n\ndef fix(s, e):\n    for x in (s, e):\n"
        "        if x.dim() > 1:\n            x.squeeze_(-1)\n    return s, e\n"
    )
    result = convert_checked(source)
    assert "x.squeeze_(-1)" in result.code
    assert [f.rule for f in result.findings] == ["TM940"]
