"""`torch.*` function calls convert to the `ops` idiom where MindSpore's operator takes torch's
arguments, to a companion entry with torch's signature where it lacks one of them, and stay as
they are (with a finding) where neither is certain."""

from __future__ import annotations

import pytest
from conftest import convert_checked

HEAD = "import torch\n\n"

CALLS = [
    # the idiom, with the argument forms torch also accepts
    (
        "y = torch.argsort(a, dim=1)",
        "y = ops.argsort(a, axis=1).astype(mindspore.int64)",
    ),
    (
        "y = torch.cdist(a, b, 1.0, 'use_mm_for_euclid_dist')",
        "y = ops.cdist(a, b, 1.0)",
    ),
    ("y = torch.dsplit(a, sections=2)", "y = ops.dsplit(a, indices_or_sections=2)"),
    ("y = torch.dot(input=a, tensor=b)", "y = ops.inner(a, other=b)"),
    ("y = torch.ones(3).dot(tensor=b)", "y = ops.inner(ops.ones(3), other=b)"),
    (
        "y = torch.cosine_similarity(a, b, axis=0)",
        "y = ops.cosine_similarity(a, b, dim=0)",
    ),
    ("y = torch.trapezoid(a, dx=2)", "y = ops.trapz(a, dx=2.0)"),
    ("y = torch.copysign(a, -1, out=None)", "y = ops.copysign(a, -1)"),
    ("y = torch.narrow(a, 0, 1, 2)", "y = ops.narrow(a, 0, 1, 2)"),
    ("y = torch.round(a)", "y = ops.round(a)"),
    ("y = torch.add(a, b)", "y = ops.add(a, b)"),
    ("y = torch.norm(a)", "y = ops.norm(a)"),
    ("y = a.to(torch.cfloat)", "y = a.to(mindspore.complex64)"),
    ("y = torch.nan", "y = mindspore.numpy.nan"),
    (
        "y = torch.var(a, 1, False, True)",
        "y = ops.var(a, axis=1, ddof=0, keepdims=True)",
    ),
    (
        "y = torch.softmax(a, 1, torch.float64)",
        "y = ops.softmax(a, axis=1, dtype=mindspore.float64)",
    ),
    # Python complex numbers: torch's complex64
    (
        "y = torch.tensor([1 + 2j, -1j])",
        "y = mindspore.tensor([1 + 2j, -1j], dtype=mindspore.complex64)",
    ),
    # a (values, indices) pair with int64 indices
    ("v, i = torch.sort(a)", "v, i = ms_aux.values_indices(ops.sort(a))"),
    ("i = torch.topk(a, 2).indices", "i = ops.topk(a, 2)[1].astype(mindspore.int64)"),
    # companion entries with torch's signatures
    ("y = torch.add(a, b, alpha=2)", "y = ms_aux.torch_add(a, b, alpha=2)"),
    ("y = torch.round(a, decimals=2)", "y = ms_aux.torch_round(a, decimals=2)"),
    ("y = torch.diag(a, 1)", "y = ms_aux.torch_diag(a, 1)"),
    ("y = torch.narrow(a, 0, s, 2)", "y = ms_aux.narrow(a, 0, s, 2)"),
    ("y = torch.norm(a, p='fro', dim=1)", "y = ms_aux.torch_norm(a, p='fro', dim=1)"),
    (
        "y = torch.linspace(0, 1, 5, dtype=torch.float64)",
        "y = ms_aux.linspace(0, 1, 5, dtype=mindspore.float64)",
    ),
    (
        "y = torch.mean(a, 1, dtype=torch.float64)",
        "y = ms_aux.torch_mean(a, 1, dtype=mindspore.float64)",
    ),
    ("y = torch.masked_fill(a, m, 2)", "y = ms_aux.masked_fill(a, m, 2)"),
    ("y = torch.bernoulli(a)", "y = ms_aux.torch_bernoulli(a)"),
    ("y = torch.median(a)", "y = ms_aux.torch_median(a)"),
    ("y = torch.angle(a)", "y = ms_aux.torch_angle(a)"),
    ("y = torch.nanmedian(a, 1)", "y = ms_aux.nanmedian(a, 1)"),
    ("y = torch.cartesian_prod(a, b)", "y = ms_aux.cartesian_prod(a, b)"),
    ("y = torch.tensordot(a, b, dims=1)", "y = ms_aux.tensordot(a, b, dims=1)"),
    (
        "y = torch.can_cast(torch.int32, torch.float16)",
        "y = ms_aux.can_cast(mindspore.int32, mindspore.float16)",
    ),
    ("y = torch.gradient(a, spacing=2.0)", "y = ms_aux.gradient(a, spacing=2.0)"),
    ("y = torch.adaptive_avg_pool1d(a, 3)", "y = ms_aux.adaptive_avg_pool1d(a, 3)"),
    (
        "y = torch.frombuffer(b, dtype=torch.int8)",
        "y = ms_aux.frombuffer(b, dtype=mindspore.int8)",
    ),
    ("y = torch.randint_like(a, 5)", "y = ms_aux.randint_like(a, 5)"),
    ("y = torch.atleast_3d()", "y = ms_aux.atleast_3d()"),
    ("y = torch.atleast_3d(a)", "y = ops.atleast_3d(a)"),
    ("y = torch.argsort(a, stable=True)", "y = ms_aux.torch_argsort(a, stable=True)"),
    ("y = torch.orgqr(a, t)", "y = ms_aux.linalg_householder_product(a, t)"),
    (
        "y = torch.stft(a, 4, return_complex=True)",
        "y = ms_aux.stft(a, 4, return_complex=True)",
    ),
    ("y = torch.istft(a, n_fft=4)", "y = ms_aux.istft(a, n_fft=4)"),
    (
        "y = torch.add(a, b, alpha=2, out=o)",
        "y = ms_aux.write_out(o, ms_aux.torch_add(a, b, alpha=2))",
    ),
    # _foreach ops of one tensor, `self=`, and in-place functions given *args
    ("ys = torch._foreach_exp_(xs)", "ys = ms_aux.foreach_exp_(xs)"),
    ("ys = torch._foreach_frac(xs)", "ys = [ops.frac(_t) for _t in xs]"),
    ("ys = torch._foreach_neg(self=xs)", "ys = ms_aux.foreach_neg(xs)"),
    ("ys = torch._foreach_sqrt_(self=xs)", "ys = ms_aux.foreach_sqrt_(xs)"),
    ("y = torch.exp_(*args)", "y = ms_aux.write_in_place(ops.exp, *args)"),
]


@pytest.mark.parametrize(("before", "after"), CALLS, ids=[b for b, _ in CALLS])
def test_call_converts(before: str, after: str) -> None:
    result = convert_checked(HEAD + before + "\n")
    assert after in result.code.splitlines(), result.code
    assert "import torch" not in result.code
    assert not [f for f in result.findings if f.severity == "error"], result.findings


# Not rewritten: what is not certain keeps its finding.
KEPT = [
    ("y = torch.zeros(2, requires_grad=flag)", "TM941", "requires_grad"),
    ("y = torch.count_nonzero(*args, dim=1)", "TM941", "spread"),
]


@pytest.mark.parametrize(("before", "rule", "word"), KEPT, ids=[b for b, _, _ in KEPT])
def test_uncertain_call_keeps_a_finding(before: str, rule: str, word: str) -> None:
    result = convert_checked(HEAD + before + "\n")
    assert before in result.code
    found = [f for f in result.findings if f.rule == rule]
    assert found and any(word in (f.message + " " + f.hint) for f in found), found


# Left as they are: a literal that holds a name may be any dtype; a pair nothing reads by name.
UNCHANGED = [
    ("y = torch.tensor([z, 1j])", "y = mindspore.tensor([z, 1j])"),
    ("y = torch.tensor([1.0, 2.0])", "y = mindspore.tensor([1.0, 2.0])"),
    ("v, i = torch.max(a, 1)", "v, i = ops.max(a, 1)"),
    ("y = torch.max(a, 1).indices", "y = ops.max(a, 1)[1]"),
]


@pytest.mark.parametrize(("before", "after"), UNCHANGED, ids=[b for b, _ in UNCHANGED])
def test_no_more_than_needed(before: str, after: str) -> None:
    result = convert_checked(HEAD + before + "\n")
    assert after in result.code.splitlines(), result.code
