"""Tensor methods derived from their `torch.*` function, and the companion entries of
library/tensor_methods.py, converted and run on real MindSpore: torch's values, dtypes and
result types (named pairs with int64 indices), with no finding and no torch left."""

from __future__ import annotations

import pytest
from conftest import convert_checked
from test_tensor_semantics_real import _assert_same, _plain, _run_converted

CASES = {
    "derived_from_function": (
        (
            "m = torch.tensor([[1., 4., 9.], [16., 25., 36.]])\n"
            "d = m.diff(dim=1)\n"
            "d2 = torch.tensor([1, 3, 2, 10]).diff(n=2, prepend=torch.tensor([4, 5]))\n"
            "nm = torch.tensor([[1., float('nan')], [3., 4.]]).nanmean(dim=1, keepdim=True)\n"
            "ts = m.tensor_split(sections=2, dim=1)\n"
            "ti = m.tensor_split(indices=[1], dim=0)\n"
            "ss = m.select_scatter(torch.zeros(3), dim=0, index=1)\n"
            "fx = torch.tensor([-1.5, 2.7]).fix()\n"
            "ds = torch.arange(8.).reshape(1, 2, 4).dsplit(sections=2)\n"
        ),
        ["d", "d2", "nm", "ts", "ti", "ss", "fx", "ds"],
    ),
    "new_tensors": (
        (
            "x = torch.tensor([1, 2, 3])\n"
            "a = x.new_full((2, 3), 4, device='cpu', requires_grad=False)\n"
            "b = x.new_ones(2, 3)\n"
            "c = x.new_zeros(size=(2,), dtype=torch.float64, pin_memory=False)\n"
            "f = torch.tensor([1., 2.])\n"
            "g = f.new_ones((1, 2), requires_grad=True, layout=torch.strided).detach()\n"
            "shape = [1, 2, 3]\n"
            "h = f.new_ones(*shape)\n"
            "k = x.new_zeros(*shape, dtype=torch.float32)\n"
        ),
        ["a", "b", "c", "g", "h", "k"],
    ),
    "sizes_by_name": (
        (
            "a = torch.arange(6)\n"
            "v = a.view(size=[2, 3])\n"
            "k = (3, 2)\n"
            "w = a.view(size=k)\n"
            "r = a.reshape(shape=k)\n"
        ),
        ["v", "w", "r"],
    ),
    "in_place_fills": (
        (
            "z = torch.zeros((5, 3))\n"
            "z.fill_diagonal_(5, wrap=True)\n"
            "w = torch.zeros((3, 3))\n"
            "r = w.fill_diagonal_(fill_value=2)\n"
            "p = torch.tensor([1.02, 2.21, 3.33])\n"
            "p.polygamma_(n=1)\n"
            "q = torch.tensor([1.5, 2.5]).polygamma(2)\n"
        ),
        ["z", "w", "r", "p", "q"],
    ),
    "scatter_reduce": (
        (
            "src = torch.tensor([1., 2., 3., 4., 5., 6.])\n"
            "index = torch.tensor([0, 1, 0, 1, 2, 1])\n"
            "s = torch.tensor([1., 2., 3., 4.])\n"
            "s.scatter_reduce_(0, index, src, reduce='sum', include_self=False)\n"
            "a = torch.tensor([1., 2., 3., 4.])\n"
            "a.scatter_reduce_(0, index, src, reduce='amax')\n"
            "m = torch.tensor([1., 2., 3., 4.]).scatter_reduce(0, index, src, 'mean')\n"
            "v = torch.tensor([[10., 20., 30.], [40., 50., 60.]])\n"
            "v.scatter_reduce_(0, torch.zeros((2, 3)).long(), v.clone(), 'prod')\n"
        ),
        ["s", "a", "m", "v"],
    ),
    "pairs_and_parts": (
        (
            "m = torch.tensor([[1., 5., 3.], [4., 2., 6.]])\n"
            "kv = m.kthvalue(k=2, dim=0, keepdim=True)\n"
            "kval, kidx = m.kthvalue(2)\n"
            "tk = m.topk(2)\n"
            "tv = m.topk(k=1, dim=0).values\n"
            "sw = torch.arange(10).split_with_sizes([3, 2, 5], dim=0)\n"
            "dg = torch.tensor([1., 2.]).diag(1)\n"
            "dm = m.diag(-1)\n"
            "nr = m.narrow(1, torch.tensor(1), 2)\n"
            "fi = m.index_fill(1, torch.tensor([0, 2]), -1.0)\n"
            "ex = torch.tensor([[1.], [2.]]).expand(size=(-1, 3))\n"
        ),
        ["kv", "kval", "kidx", "tk", "tv", "sw", "dg", "dm", "nr", "fi", "ex"],
    ),
    "function_entries_and_casts": (
        (
            "x = torch.tensor([[0.2364, -0.7752, 0.6372], [1.7201, 0.7394, -0.0504],\n"
            "                  [-0.3371, -1.0584, 0.5296], [0.3550, -0.4022, 1.5569]])\n"
            "s = x.svd(compute_uv=False)[1]\n"
            "lu, piv = torch.tensor([[4., 3.], [6., 3.]]).lu()\n"
            "nn = torch.tensor([[1, 2, 3], [4, 5, 6]]).narrow(-1, -2, 1)\n"
            "cf = torch.tensor([1., 2.]).cfloat()\n"
            "cd = torch.tensor([1, 2], dtype=torch.cfloat).cdouble()\n"
            "cc = x.t().corrcoef()\n"
            "m, e = torch.tensor([0., 1., 3., 8., -0.3, 1e-3]).frexp()\n"
            "do = x.dim_order()\n"
            "rc = torch.tensor([-1 + 1j, 2 - 2j], dtype=torch.complex64).resolve_conj()\n"
            "cp = torch.tensor([-1 + 1j, 2 - 2j], dtype=torch.complex64).conj_physical()\n"
            "q = torch.tensor([1., 2.])\n"
            "q.requires_grad_(requires_grad=False)\n"
        ),
        ["s", "lu", "piv", "nn", "cf", "cd", "cc", "m", "e", "do", "rc", "cp", "q"],
    ),
    "updates_of_views": (
        (
            "x = torch.tensor([-0.9, -0.3, 0.2, 0.8]).reshape(2, 2)\n"
            "r = x.acos_()\n"
            "t = torch.arange(6.).reshape(2, 3).t()\n"
            "t.mul_(2).add_(1)\n"
            "i = torch.tensor([1, 2, 3, 4]).view(2, 2)\n"
            "i.eq_(2)\n"
            "a = torch.arange(24.).reshape(2, 3, 4)\n"
            "ra = a.transpose_(dim0=0, dim1=2)\n"
            "s = torch.ones(2, 1, 3)\n"
            "s.squeeze_(1)\n"
        ),
        ["x", "r", "t", "i", "a", "ra", "s"],
    ),
    "spectra_and_norms": (
        (
            "sig = torch.tensor([[5.9, 5.9, 5.3, 5.4, 5.4, 1.0, 2.0, 0.5],\n"
            "                    [0.06, 0.06, -0.06, 0.63, 0.63, 0.1, -0.3, 0.2]])\n"
            "s1 = sig.stft(n_fft=4, return_complex=True)\n"
            "s2 = sig.stft(4, hop_length=2, return_complex=False, pad_mode='constant')\n"
            "i1 = s1.istft(n_fft=4)\n"
            "i2 = s1.istft(n_fft=4, length=6)\n"
            "s3 = sig.stft(4, 1, window=torch.ones(4), center=False, return_complex=True)\n"
            "i3 = s3.istft(4, 1, 4, torch.ones(4), False)\n"
            "x = torch.arange(24.).reshape(2, 3, 4) - 12\n"
            "fro = x.norm(p='fro')\n"
            "zero = x.norm(p=0)\n"
            "two = x.norm(p=2, dim=1, keepdim=True)\n"
            "wide = x.norm(p=2, dim=1, dtype=torch.float64)\n"
            "three = x.norm(3, (0, 2))\n"
        ),
        ["s1", "s2", "i1", "i2", "i3", "fro", "zero", "two", "wide", "three"],
    ),
    "backend_settings_read_back": (
        (
            "torch.backends.cudnn.allow_tf32 = False\n"
            "tf32 = torch.backends.cudnn.allow_tf32\n"
            "enabled = torch.backends.cudnn.enabled\n"
            "deterministic = torch.backends.cudnn.deterministic\n"
        ),
        ["tf32", "enabled", "deterministic"],
    ),
}


@pytest.mark.real
@pytest.mark.parametrize("case", sorted(CASES))
def test_converted_method_computes_torchs_values(case, fw, tmp_path) -> None:
    torch, ms = fw
    body, names = CASES[case]
    source = "import torch\n" + body
    expected_space: dict = {}
    exec(compile(source, "original.py", "exec"), expected_space)  # noqa: S102 - our snippet
    result = convert_checked(source)
    assert "torch" not in result.code, result.code
    assert not result.findings, [f.message for f in result.findings]
    got_space = _run_converted(
        result.code, result.companion, tmp_path, f"methods_{case}"
    )
    for name in names:
        _assert_same(
            _plain(expected_space[name], torch, ms),
            _plain(got_space[name], torch, ms),
            name,
        )
        expected = expected_space[name]
        for field in ("values", "indices"):
            if isinstance(expected, tuple) and hasattr(expected, field):
                assert hasattr(got_space[name], field), f"{name}.{field}"
