"""Calls of torch functions that have no one-line MindSpore idiom on the CPU become calls of the
companion entries (`ms_aux.<entry>(<the call's own arguments>)`), with the companion import; the
idiom stays where it is certain, and `--target ascend` keeps the `mint` counterparts."""

from __future__ import annotations

import pytest
from conftest import convert_checked
from torch2ms.rules.companion import assemble, entry_names
from torch2ms.rules.companion.table_functional import ENTRIES

HEAD = "import torch\nimport torch.nn.functional as F\n\n"

COMPANION_CALLS = [
    (
        "y = torch.einsum('bnc,nkc->bnk', a, b)",
        "y = ms_aux.einsum('bnc,nkc->bnk', a, b)",
    ),
    (
        "d = torch.einsum('nm,hnm->h', (distances, attn_map))",
        "d = ms_aux.einsum('nm,hnm->h', (distances, attn_map))",
    ),
    (
        "x = F.scaled_dot_product_attention(q, k, v, dropout_p=self.attn_drop.p if self.training else 0.)",
        "x = ms_aux.scaled_dot_product_attention(q, k, v, dropout_p=self.attn_drop.p if self.training else 0.)",
    ),
    (
        "x = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=False)",
        "x = ms_aux.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=False)",
    ),
    (
        "x = torch.roll(x, shifts=(-s, -s), dims=(1, 2))",
        "x = ms_aux.roll(x, shifts=(-s, -s), dims=(1, 2))",
    ),
    (
        "x = F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)",
        "x = ms_aux.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)",
    ),
    (
        "x = F.rms_norm(x, normalized_shape, weight, eps)",
        "x = ms_aux.rms_norm(x, normalized_shape, weight, eps)",
    ),
    ("q = F.normalize(q, dim=-1)", "q = ms_aux.normalize(q, dim=-1)"),
    (
        "w = F.batch_norm(w, None, None, training=True, momentum=0., eps=self.eps)",
        "w = ms_aux.batch_norm(w, None, None, training=True, momentum=0., eps=self.eps)",
    ),
    (
        "x = F.fold(x, output_size=(H, W), kernel_size=3, padding=1, stride=2)",
        "x = ms_aux.fold(x, output_size=(H, W), kernel_size=3, padding=1, stride=2)",
    ),
    (
        "p = F.interpolate(p, size=new_size, mode=interpolation, antialias=antialias)",
        "p = ms_aux.interpolate(p, size=new_size, mode=interpolation, antialias=antialias)",
    ),
    (
        "x = F.interpolate(x, size=ss, mode='bicubic', align_corners=False)",
        "x = ms_aux.interpolate(x, size=ss, mode='bicubic', align_corners=False)",
    ),
    (
        "x = F.interpolate(x, scale_factor=2)",
        "x = ms_aux.interpolate(x, scale_factor=2)",
    ),
    (
        "x = F.avg_pool2d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode)",
        "x = ms_aux.avg_pool2d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode)",
    ),
    (
        "n = len(torch.unique(widths))",
        "n = len(ms_aux.unique(widths))",
    ),
    (
        "x = F.upsample(x, None, 2, 'bilinear')",
        "x = ms_aux.interpolate(x, None, 2, 'bilinear')",
    ),
    # MindSpore's LogSoftmax kernel rounds a few ulps away from torch's: the composition.
    ("a = torch.log_softmax(x, 1)", "a = ms_aux.log_softmax_over(x, 1)"),
    ("a = x.log_softmax(dim=-1)", "a = ms_aux.log_softmax_over(x, dim=-1)"),
    ("a = F.log_softmax(x, dim=1)", "a = ms_aux.log_softmax(x, dim=1)"),
]


@pytest.mark.parametrize(
    ("before", "after"), COMPANION_CALLS, ids=[b for b, _ in COMPANION_CALLS]
)
def test_call_becomes_the_companion_entry(before: str, after: str) -> None:
    result = convert_checked(HEAD + before + "\n")
    lines = result.code.splitlines()
    assert after in lines
    assert "import ms_aux" in lines
    assert "torch" not in result.code
    assert not [f for f in result.findings if f.severity == "error"], result.findings


IDIOMS = [
    # The idiom stays where MindSpore computes what torch does.
    (
        "x = F.interpolate(x, size=(H, W), mode='bilinear', align_corners=False)",
        "x = ops.interpolate(x, size=(H, W), mode='bilinear', align_corners=False)",
    ),
    ("x = F.interpolate(x, size=(H, W))", "x = ops.interpolate(x, size=(H, W))"),
    (
        "x = F.group_norm(x, self.num_groups, self.weight, self.bias, self.eps)",
        "x = ops.group_norm(x, self.num_groups, self.weight, self.bias, self.eps)",
    ),
    # The top-level aliases map as their torch.nn.functional forms do.
    ("a = torch.softmax(x, dim=1)", "a = ops.softmax(x, axis=1)"),
    ("a = torch.selu(x)", "a = ops.selu(x)"),
    ("a = torch.dropout(x, 0.1, True)", "a = ops.dropout(x, 0.1, True)"),
    ("a = torch.dropout(x, p, train=flag)", "a = ops.dropout(x, p, training=flag)"),
    (
        "a = torch.group_norm(x, 2, w, b, 1e-5, True)",
        "a = ops.group_norm(x, 2, w, b, 1e-5)",
    ),
    (
        "a = torch.conv2d(x, w, None, 1, 1)",
        "a = ops.conv2d(x, w, None, 1, padding=1, pad_mode='pad')",
    ),
    ("m = torch.linalg.pinv(resize_mat)", "m = ops.pinv(resize_mat)"),
    # A literal padding per dimension is written out per side; an int stays.
    (
        "x = F.avg_pool2d(x, k, s, (0, 0), True, False)",
        "x = ops.avg_pool2d(x, k, s, (0, 0, 0, 0), True, False)",
    ),
    ("x = F.avg_pool2d(x, 3, 2, 1)", "x = ops.avg_pool2d(x, 3, 2, 1)"),
    ("v = torch.fft.fft(v, dim=-1)", "v = ops.fft(v, dim=-1)"),
    # MindSpore's sixth max_pool2d parameter is return_indices: torch's ceil_mode goes by name.
    (
        "x = F.max_pool2d(x, self.kernel_size, self.stride, (0, 0), self.dilation, self.ceil_mode)",
        "x = ops.max_pool2d(x, self.kernel_size, self.stride, (0, 0), self.dilation, ceil_mode=self.ceil_mode)",
    ),
]


@pytest.mark.parametrize(("before", "after"), IDIOMS, ids=[b for b, _ in IDIOMS])
def test_idiom_stays_where_it_is_certain(before: str, after: str) -> None:
    result = convert_checked(HEAD + before + "\n")
    assert after in result.code.splitlines()
    assert "ms_aux" not in result.code
    assert "torch" not in result.code


ASCEND = [
    ("y = torch.einsum('bnc,nkc->bnk', a, b)", "y = mint.einsum('bnc,nkc->bnk', a, b)"),
    (
        "x = torch.roll(x, shifts=(1, 1), dims=(1, 2))",
        "x = mint.roll(x, shifts=(1, 1), dims=(1, 2))",
    ),
    ("q = F.normalize(q, dim=-1)", "q = mint.nn.functional.normalize(q, dim=-1)"),
    (
        "x = F.interpolate(x, size=s, mode='bicubic')",
        "x = mint.nn.functional.interpolate(x, size=s, mode='bicubic')",
    ),
    (
        "w = F.batch_norm(w, None, None, training=True)",
        "w = mint.nn.functional.batch_norm(w, None, None, training=True)",
    ),
]


@pytest.mark.parametrize(("before", "after"), ASCEND, ids=[b for b, _ in ASCEND])
def test_ascend_keeps_the_mint_counterpart(before: str, after: str) -> None:
    result = convert_checked(HEAD + before + "\n", target="ascend")
    assert after in result.code.splitlines()
    assert "ms_aux" not in result.code


def test_inside_a_package_the_companion_is_imported_relatively(tmp_path) -> None:
    from torch2ms.migrator.context import CompanionImport, Options
    from torch2ms.migrator.convert import convert_source

    result = convert_source(
        HEAD + "y = torch.einsum('ij,jk->ik', a, b)\n",
        "pkg/layers/case.py",
        Options(),
        companion_import=CompanionImport("ms_aux", 2),
    )
    assert "from .. import ms_aux" in result.code.splitlines()
    assert "y = ms_aux.einsum('ij,jk->ik', a, b)" in result.code


def test_a_function_passed_as_a_value_is_the_entry() -> None:
    result = convert_checked(HEAD + "attention = F.scaled_dot_product_attention\n")
    assert "attention = ms_aux.scaled_dot_product_attention" in result.code


def test_every_table_entry_names_a_library_entry() -> None:
    names = set(entry_names())
    assert set(ENTRIES.values()) <= names


def test_assembled_module_holds_what_it_needs_and_compiles() -> None:
    text = assemble(["scaled_dot_product_attention", "interpolate"])
    compile(text, "ms_aux.py", "exec")
    for needed in ("_matmul_transpose_b", "_resize_weights", "_antialias_weights"):
        assert f"{needed} =" in text or f"def {needed}(" in text
    assert "def einsum(" not in text


def test_activations_kept_as_values_become_companion_functions() -> None:
    source = (
        "import torch.nn.functional as F\n\n"
        "ACTS = dict(relu=F.relu, silu=F.silu)\n\n"
        "def f(x):\n"
        "    return F.relu(x, inplace=True)\n"
    )
    result = convert_checked(source)
    assert "ACTS = dict(relu=ms_aux.relu, silu=ms_aux.silu)" in result.code
    # `inplace=True` is carried over: the companion function writes the result into x
    assert "return ms_aux.relu(x, inplace=True)" in result.code
    assert "TM941" not in {f.rule for f in result.findings}
