"""Tensor methods and torch functions, converted and run on real MindSpore, give torch's values.

Each snippet runs on torch, and its conversion runs on MindSpore with its companion module; the
named values are compared (values at rtol 1e-5, dtypes, Python types of scalars and bools, and the
fields of named tuples). The snippets stand for families: in-place methods derived from their
out-of-place mapping, `out=`, companion entries for what MindSpore lacks on CPU, and results whose
type torch fixes (a bool from `equal`, attributes `real`/`imag`, `.values`/`.indices`).
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
from conftest import convert_checked
from torch2ms.rules.companion import assemble

CASES = {
    "inplace_compare": (
        (
            "x = torch.tensor([[1., 2.], [3., 4.]])\n"
            "y = x.clone()\n"
            "r = x.eq_(torch.tensor([[1., 1.], [4., 4.]]))\n"
            "y.gt_(2)\n"
        ),
        ["x", "y", "r"],
    ),
    "inplace_keywords": (
        (
            "x = torch.tensor([[1., 1., 1.], [2., 2., 2.]])\n"
            "x.cumsum_(dim=1)\n"
            "z = torch.tensor([3., 4.])\n"
            "z.hypot_(torch.tensor([4., 3.]))\n"
            "w = torch.tensor([[1., -2.], [3., 4.]])\n"
            "w.clamp_min_(0.5)\n"
            "i = torch.tensor([4, 6, 9])\n"
            "i.lcm_(torch.tensor([6, 4, 3]))\n"
        ),
        ["x", "z", "w", "i"],
    ),
    "inplace_from_function": (
        (
            "x = torch.tensor([0.5, 2.0, 3.0])\n"
            "x.xlogy_(torch.tensor([2.0, 3.0, 4.0]))\n"
            "b = torch.tensor([[1., 2.], [3., 4.]])\n"
            "b.addmm_(torch.ones(2, 3), torch.ones(3, 2), beta=0.5)\n"
        ),
        ["x", "b"],
    ),
    "out_keyword": (
        (
            "a = torch.tensor([1.5, 2.0, 3.0])\n"
            "o = a.clone()\n"
            "r = torch.acosh(a, out=o)\n"
            "e = torch.tensor([])\n"
            "torch.amax(torch.tensor([[1., 5.], [7., 2.]]), dim=1, out=e)\n"
            "c = torch.zeros(2, 3)\n"
            "torch.mul(torch.arange(6.).reshape(2, 3), 2, out=c)\n"
            "s = torch.sub(torch.ones(3), torch.arange(3.), alpha=0.5)\n"
            "q = torch.zeros(2)\n"
            "torch.quantile(torch.arange(6.).reshape(2, 3), 0.5, dim=1, out=q)\n"
        ),
        ["o", "r", "e", "c", "q", "s"],
    ),
    "quantile": (
        (
            "x = torch.tensor([[0., 1., 2., 3.], [4., 5., 6., 9.]])\n"
            "q1 = x.quantile(q=0.6, dim=1, keepdim=True)\n"
            "q2 = torch.quantile(x, torch.tensor([0.25, 0.5]), dim=0)\n"
            "q3 = x.quantile(0.4, interpolation='nearest')\n"
            "n = torch.tensor([[1., float('nan'), 3.], [2., 4., 8.]])\n"
            "q4 = torch.nanquantile(n, 0.5, dim=1)\n"
            "q5 = n.quantile(0.5, dim=1)\n"
        ),
        ["q1", "q2", "q3", "q4", "q5"],
    ),
    "unique": (
        (
            "s = torch.tensor([[1, 2], [1, 2], [3, 0]])\n"
            "u, inv, cnt = s.unique(dim=0, return_inverse=True, return_counts=True)\n"
            "v = torch.unique(s, dim=1)\n"
            "w = torch.tensor([3., 1., 3., 2.]).unique()\n"
        ),
        ["u", "inv", "cnt", "v", "w"],
    ),
    "index_updates": (
        (
            "t = torch.arange(9.).reshape(3, 3)\n"
            "index = torch.tensor([0, 4, 2])\n"
            "a = torch.zeros(5, 3)\n"
            "b = a.index_copy(0, index, t)\n"
            "a.index_copy_(0, index, t)\n"
            "c = torch.ones(5, 3)\n"
            "c.index_add_(0, torch.tensor([0, 0, 2]), t, alpha=2)\n"
            "d = torch.index_add(torch.ones(3, 5), 1, index, t)\n"
            "p = torch.zeros(4)\n"
            "p.index_put_((torch.tensor([0, 2, 0]),), torch.tensor([1., 2., 3.]), accumulate=True)\n"
        ),
        ["a", "b", "c", "d", "p"],
    ),
    "counting": (
        (
            "h = torch.histc(torch.tensor([1., 2., 1., 2.5]), bins=4, min=0, max=3)\n"
            "hist, edges = torch.tensor([[1., 2, 1]]).histogram(bins=4, range=(0., 3.))\n"
            "m = torch.tensor([[1, 2, 2, 3], [0, 5, 5, 0]])\n"
            "mv, mi = m.mode()\n"
            "mk = torch.mode(m, 0, keepdim=True)\n"
            "mkv, mki = mk.values, mk.indices\n"
        ),
        ["h", "hist", "edges", "mv", "mi", "mkv", "mki"],
    ),
    "views_and_pairs": (
        (
            "r = torch.arange(6.).reshape(2, 3).roll(shifts=(1, -1), dims=(0, 1))\n"
            "s = torch.arange(9.).as_strided((2, 2), (1, 2), 1)\n"
            "n = torch.arange(9.).reshape(3, 3).narrow_copy(1, 1, 2)\n"
            "mm = torch.arange(9.).reshape(3, 3).aminmax(dim=0)\n"
            "low, high = mm.min, mm.max\n"
            "cm = torch.tensor([1., 3., 2., 5.]).cummax(0)\n"
            "cv, ci = cm.values, cm.indices\n"
        ),
        ["r", "s", "n", "low", "high", "cv", "ci"],
    ),
    "functions_composed": (
        (
            "n = torch.bitwise_not(torch.tensor([1, 0, 5]))\n"
            "nb = torch.tensor([True, False]).bitwise_not()\n"
            "c = torch.allclose(torch.tensor([1., 2.]), torch.tensor([1., 2.000001]))\n"
            "s = torch.select(torch.arange(6.).reshape(2, 3), 1, -1)\n"
            "t = torch.take_along_dim(torch.arange(6.).reshape(2, 3), torch.tensor([[0], [2]]), dim=1)\n"
            "bs = torch.broadcast_shapes((2, 1), (1, 3))\n"
            "u = torch.unflatten(torch.arange(6.).reshape(1, 6), 1, (2, 3))\n"
            "ct = torch.cumulative_trapezoid(torch.tensor([1., 2., 4.]), torch.tensor([0., 1., 3.]))\n"
            "x = torch.tensor([-1.5, 0.5, 2.0])\n"
            "torch.abs_(x)\n"
            "y = torch.clamp_(torch.tensor([-1.5, 0.5, 2.0]), min=-1, max=1)\n"
            "z = torch.acos(input=torch.tensor([0.3, 0.5]))\n"
        ),
        ["n", "nb", "c", "s", "t", "bs", "u", "ct", "x", "y", "z"],
    ),
    "result_types": (
        (
            "a = torch.tensor([1., 2.])\n"
            "same = a.equal(torch.tensor([1., 2.]))\n"
            "other = a.equal(torch.tensor([1., 3.]))\n"
            "z = torch.tensor([1 + 2j, 3 - 1j], dtype=torch.complex64)\n"
            "re, im = z.real, z.imag\n"
        ),
        ["same", "other", "re", "im"],
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
    return namespace


def _plain(value, torch, ms):
    """(kind, payload): arrays with their dtype name, sequences element by element."""
    if isinstance(value, torch.Tensor):
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
        np.asarray(got[1]), np.asarray(expected[1]), rtol=1e-5, atol=1e-6, err_msg=where
    )


@pytest.mark.real
@pytest.mark.parametrize("case", sorted(CASES))
def test_converted_snippet_computes_torchs_values(case, fw, tmp_path) -> None:
    torch, ms = fw
    body, names = CASES[case]
    source = "import torch\n" + body
    expected_space: dict = {}
    exec(compile(source, "original.py", "exec"), expected_space)  # noqa: S102 - our snippet
    result = convert_checked(source)
    assert "torch" not in result.code, result.code
    assert not result.findings, [f.message for f in result.findings]
    got_space = _run_converted(result.code, result.companion, tmp_path, f"case_{case}")
    for name in names:
        _assert_same(
            _plain(expected_space[name], torch, ms),
            _plain(got_space[name], torch, ms),
            name,
        )
    for field in ("values", "indices", "min", "max"):
        for name in names:
            if hasattr(expected_space[name], field) and isinstance(
                expected_space[name], tuple
            ):
                assert hasattr(got_space[name], field), f"{name}.{field}"
