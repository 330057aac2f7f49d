"""`torch.*` functions, converted and run on real MindSpore, give torch's values and dtypes.

Each snippet runs on torch; its conversion runs on MindSpore with its companion module, and the
named values are compared (values at rtol 1e-5, dtypes, Python types, named-tuple fields). The
snippets stand for the families of `torch.*` functions: `_foreach` ops of one tensor, functions
whose MindSpore op lacks an argument torch takes (`alpha=`, `decimals=`, `dtype=`, a diagonal, a
tensor start), functions MindSpore lacks (served by companion entries with torch's signatures),
torch's result types (int64 indices, named pairs, complex64 literals), and argument forms (`self=`,
`out=None`, `*args` of in-place functions).
"""

from __future__ import annotations

import re
import sys

import numpy as np
import pytest
from conftest import convert_checked
from torch2ms.rules.companion import assemble

pytestmark = pytest.mark.real

CASES = {
    "foreach_unary": (
        (
            "xs = [torch.tensor([0.2, -0.4, 0.7]), torch.tensor([0.9])]\n"
            "r = torch._foreach_asin_(xs)\n"
            "f = torch._foreach_frac(self=[torch.tensor([1.5, -2.25])])\n"
            "ys = [torch.tensor([1.0, 2.0])]\n"
            "q = torch._foreach_sqrt_(self=ys)\n"
            "torch._foreach_log1p_(ys)\n"
            "z = torch._foreach_zero_([torch.tensor([3.0])])\n"
        ),
        ["xs", "r", "f", "ys", "q", "z"],
    ),
    "missing_arguments": (
        (
            "a = torch.tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]])\n"
            "s = torch.add(a, torch.ones(2, 3), alpha=3)\n"
            "r = torch.round(a / 7, decimals=3)\n"
            "r2 = torch.round(a * 13, decimals=-1)\n"
            "d = torch.diag(torch.tensor([1.0, 2.0, 3.0]), -1)\n"
            "d2 = torch.diag(a, 1)\n"
            "m = torch.masked_fill(a, a > 2, 7)\n"
            "n = torch.narrow(a, 1, torch.tensor(1), 2)\n"
            "l = torch.linspace(0, 2, 5, dtype=torch.float64)\n"
            "mu = torch.mean(a, 1, keepdim=True, dtype=torch.float64)\n"
            "t = torch.trapezoid(a, dx=2)\n"
            "c = torch.cdist(a, a, 1.0, 'use_mm_for_euclid_dist_if_necessary')\n"
            "p = torch.dsplit(torch.arange(8.0).reshape(1, 2, 4), sections=2)\n"
            "v = torch.vsplit(torch.arange(8.0).reshape(4, 2), indices=[1, 3])\n"
            "o = torch.copysign(a, -1, out=None)\n"
            "var = torch.var(a, 1, False, True)\n"
            "vm = torch.std_mean(a, 0, True, False)\n"
            "soft = torch.softmax(a, 1, torch.float64)\n"
        ),
        [
            "s",
            "r",
            "r2",
            "d",
            "d2",
            "m",
            "n",
            "l",
            "mu",
            "t",
            "c",
            "p",
            "v",
            "o",
            "var",
            "vm",
            "soft",
        ],
    ),
    "norms": (
        (
            "a = torch.tensor([[1.0, -2.0, 0.0], [4.0, 0.5, -6.0]])\n"
            "f = torch.norm(a, p='fro')\n"
            "z = torch.norm(a, p=0)\n"
            "one = torch.norm(a, p=1, dim=1, keepdim=True)\n"
            "big = torch.norm(a, p=float('inf'), dim=0)\n"
            "three = torch.norm(a, 3)\n"
            "plain = torch.norm(a)\n"
        ),
        ["f", "z", "one", "big", "three", "plain"],
    ),
    "companion_functions": (
        (
            "import array\n"
            "b = torch.frombuffer(array.array('h', [1, -2, 3]), dtype=torch.int16)\n"
            "cp = torch.cartesian_prod(torch.tensor([1, 2]), torch.tensor([3, 4, 5]))\n"
            "a = torch.arange(24.0).reshape(2, 3, 4)\n"
            "td = torch.tensordot(a, torch.ones(3, 4, 2), dims=2)\n"
            "td2 = torch.tensordot(a, torch.ones(4, 2), dims=([2], [0]))\n"
            "cc = [torch.can_cast(torch.float64, torch.float16), torch.can_cast(torch.float32, torch.int32)]\n"
            "x = torch.tensor([[2.0, float('nan'), 1.0, 5.0], [float('nan'), 3.0, 0.5, 4.0]])\n"
            "nm = torch.nanmedian(x, dim=1, keepdim=True)\n"
            "nall = torch.nanmedian(x)\n"
            "rr = torch.tensor([-3.0, 2.0, -0.5])\n"
            "torch.rrelu_(rr)\n"
            "uc = torch.unique_consecutive(torch.tensor([4, 4, 1, 1, 1, 4]), return_counts=True)\n"
            "ap = torch.adaptive_avg_pool1d(torch.arange(14.0).reshape(1, 2, 7), 3)\n"
            "ct = torch.conv_transpose3d(torch.ones(1, 2, 2, 2, 2), torch.ones(2, 3, 2, 2, 2), stride=2, padding=1)\n"
            "md = torch.median(torch.tensor([[3.0, 1.0], [2.0, 7.0]]))\n"
            "mdm = torch.tensor([[3.0, 1.0], [2.0, 7.0]]).median()\n"
            "ber = torch.bernoulli(torch.ones(2, 3))\n"
            "berm = torch.ones(2, 3).bernoulli()\n"
            "sws = torch.arange(10).split_with_sizes(*([3, 2, 5],))\n"
            "inf = torch.is_inference(x)\n"
            "none = torch.atleast_2d()\n"
            "pair = torch.atleast_3d(torch.tensor(1.0), torch.ones(2, 3))\n"
        ),
        [
            "b",
            "cp",
            "td",
            "td2",
            "cc",
            "nm",
            "nall",
            "rr",
            "uc",
            "ap",
            "ct",
            "md",
            "mdm",
            "ber",
            "berm",
            "sws",
            "inf",
            "none",
            "pair",
        ],
    ),
    "result_types": (
        (
            "a = torch.tensor([[1.0, 5.0, 2.0], [3.0, 0.0, 4.0]])\n"
            "order = torch.argsort(a, dim=1, descending=True)\n"
            "best = torch.max(input=a, dim=1)\n"
            "top = best.values\n"
            "where = best.indices\n"
            "ranked = torch.sort(a, dim=0)\n"
            "c = torch.tensor([[1 + 1j, -2j], [3.0, 1j]])\n"
            "angle = torch.angle(c)\n"
            "spectrum = torch.fft.fft2(c)\n"
            "same = torch.resolve_conj(c)\n"
        ),
        ["order", "best", "top", "where", "ranked", "c", "angle", "spectrum", "same"],
    ),
    "written_out_and_values": (
        (
            "a = torch.tensor([[3.0, -4.0], [1.0, 2.0], [0.0, -1.0]])\n"
            "o = torch.tensor([1.0], dtype=torch.float64)\n"
            "n = torch.norm(a, 2, 1, True, o, torch.float64)\n"
            "t = torch.tensor([])\n"
            "torch.tensordot(a, torch.ones(2, 3), 1, t)\n"
            "r = torch.angle(torch.tensor([-1.0, 0.0, 2.0]))\n"
            "ri = torch.angle(torch.tensor([-3, 4]))\n"
            "g = torch.gradient(torch.tensor([[1.0, 4.0, 9.0, 16.0], [2.0, 3.0, 5.0, 8.0]]))\n"
            "gx = torch.gradient(torch.tensor([1.0, 4.0, 9.0, 16.0]), spacing=(torch.tensor([0.0, 1.0, 3.0, 4.5]),))\n"
            "gd = torch.gradient(torch.tensor([[1.0, 4.0, 9.0], [2.0, 3.0, 5.0]]), spacing=2.0, dim=1)\n"
            "missing = torch.nan\n"
        ),
        ["o", "n", "t", "r", "ri", "g", "gx", "gd"],
    ),
    "spectral_and_stable": (
        (
            "x = torch.arange(16.0).reshape(2, 8) ** 1.5\n"
            "s = torch.stft(x, 4, return_complex=True)\n"
            "sr = torch.stft(x[0], n_fft=4, center=False, onesided=False, return_complex=False)\n"
            "sw = torch.stft(x[0], 4, hop_length=2, window=torch.hann_window(4), normalized=True, return_complex=True)\n"
            "back = torch.istft(s, 4)\n"
            "c = torch.stft(torch.tensor([1 + 1j, 2.5, -1.0, 0.5, 3.0, -2j]), 4)\n"
            "cut = torch.istft(sw, 4, hop_length=2, window=torch.hann_window(4), normalized=True, length=7)\n"
            "a = torch.tensor([[2.0, 1.0, 2.0, 1.0, 3.0, 2.0], [0.0, 0.0, 0.0, 5.0, 5.0, 0.0]])\n"
            "up = torch.argsort(a, dim=1, stable=True)\n"
            "down = torch.argsort(a, dim=1, descending=True, stable=True)\n"
            "e = torch.einsum('ii->i', torch.arange(9.0).reshape(3, 3))\n"
            "tr = torch.einsum('bii', torch.arange(18.0).reshape(2, 3, 3))\n"
            "h = torch.orgqr(torch.tensor([[-1.0, 2.0], [3.0, -4.0], [0.5, 1.0]]), torch.tensor([1.2, 0.4]))\n"
        ),
        ["s", "sr", "sw", "back", "c", "cut", "up", "down", "e", "tr", "h"],
    ),
    "spread_in_place": (
        (
            "x = torch.tensor([0.1, 0.5, 0.9]).reshape(3, 1)\n"
            "args = (x,)\n"
            "r = torch.acos_(*args)\n"
            "y = torch.tensor([-2.0, 0.5, 3.0])\n"
            "torch.clamp_(*(y, -1.0, 1.0))\n"
        ),
        ["x", "r", "y"],
    ),
}


def _run_converted(code: str, entries, folder, name: str) -> dict:
    (folder / "ms_aux.py").write_text(assemble(sorted(entries)), encoding="utf-8")
    sys.path.insert(0, str(folder))
    try:
        sys.modules.pop("ms_aux", None)
        namespace: dict = {"__name__": name}
        exec(compile(code, f"{name}.py", "exec"), namespace)  # noqa: S102 - our snippet
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop("ms_aux", None)
    return namespace


def _plain(value, torch, ms):
    """(kind, payload, dtype): arrays with their dtype name, sequences element by element."""
    if isinstance(value, torch.Tensor):
        value = value.detach().resolve_conj()
        return "array", value.numpy(), str(value.dtype).replace("torch.", "")
    if isinstance(value, ms.Tensor):
        return "array", value.asnumpy(), str(value.dtype).lower()
    if isinstance(value, (tuple, list)):
        return "seq", [_plain(v, torch, ms) for v in value], None
    return type(value).__name__, value, None


def _assert_same(expected, got, where: str) -> None:
    assert expected[0] == got[0], f"{where}: {expected[0]} vs {got[0]}"
    if expected[0] == "seq":
        assert len(expected[1]) == len(got[1]), where
        for i, (a, b) in enumerate(zip(expected[1], got[1])):
            _assert_same(a, b, f"{where}[{i}]")
        return
    if expected[0] == "array":
        assert expected[2] == got[2], f"{where}: dtype {expected[2]} vs {got[2]}"
        assert expected[1].shape == got[1].shape, where
    np.testing.assert_allclose(
        np.asarray(got[1]),
        np.asarray(expected[1]),
        rtol=1e-5,
        atol=1e-6,
        err_msg=where,
    )


@pytest.mark.parametrize("case", sorted(CASES))
def test_converted_function_computes_torchs_values(case, fw, tmp_path) -> None:
    torch, ms = fw
    body, names = CASES[case]
    source = "import torch\n" + body
    expected_space: dict = {}
    exec(compile(source, "original.py", "exec"), expected_space)  # noqa: S102 - our snippet
    result = convert_checked(source)
    assert not re.search(r"(?<![\w.])torch\b", result.code), result.code
    assert not result.findings, [f.message for f in result.findings]
    got_space = _run_converted(result.code, result.companion, tmp_path, f"fn_{case}")
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
