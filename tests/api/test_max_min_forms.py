"""`torch.max` / `torch.min` (and the Tensor methods) with a second tensor become `ops.maximum` /
`ops.minimum`; with an int they keep the reduction; where the source cannot tell, the companion's
`torch_max` / `tensor_max` decides when the program runs. Compared with torch on the real frameworks."""

from __future__ import annotations

import importlib
import sys

import numpy as np
import pytest
from conftest import convert_checked
from torch2ms.rules.companion import assemble

HEAD = "import torch\n\n\ndef f(a, b, d):\n"


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            "y = torch.max(a, torch.zeros_like(a))",
            "y = ops.maximum(a, ops.zeros_like(a))",
        ),
        ("y = torch.min(a, other=b)", "y = ops.minimum(a, other=b)"),
        ("y = torch.max(a, b)", "y = ms_aux.torch_max(a, b)"),
        ("y = torch.min(a, d)", "y = ms_aux.torch_min(a, d)"),
        ("y = torch.max(a)", "y = ms_aux.torch_max(a)"),
        ("y = torch.max(a, 1)", "y = ops.max(a, 1)"),
        (
            "y = torch.min(a, dim=-1, keepdim=True)",
            "y = ops.min(a, axis=-1, keepdims=True)",
        ),
        ("torch.max(a, b, out=a)", "ops.assign(a, ms_aux.torch_max(a, b))"),
        ("y = a.max(b)", "y = ms_aux.tensor_max(a, b)"),
        ("y = a.min(torch.ones_like(a))", "y = ops.minimum(a, ops.ones_like(a))"),
        ("y = a.max(1)", "y = a.max(1)"),
        ("y = a.min(dim=0, keepdim=True)", "y = a.min(dim=0, keepdim=True)"),
        ("y = a.max()", "y = a.max()"),
        ("y = torch.max(a, axis=-2).values", "y = ops.max(a, axis=-2)[0]"),
    ],
)
def test_max_min_forms(before: str, after: str) -> None:
    result = convert_checked(HEAD + f"    {before}\n    return a\n")
    assert f"    {after}\n" in result.code
    assert "import torch" not in result.code
    assert not [f for f in result.findings if f.severity == "error"]


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("y = a.max(dim=1, keepdim=True).values", "y = a.max(dim=1, keepdim=True)[0]"),
        # the companion entry: torch's int64 indices
        ("y = a.topk(2, dim=-1).indices", "y = ms_aux.topk(a, 2, dim=-1)[1]"),
        ("y = torch.stack(b).max(0).values", "y = ops.stack(b).max(0)[0]"),
        ("y = torch.sort(a).values", "y = ops.sort(a)[0]"),
        ("y = a.sort(dim=0).indices", "y = a.sort(dim=0)[1]"),
        ("y = torch.max(a, 1).indices", "y = ops.max(a, 1)[1]"),
        (
            "y = d.max(1).values",
            "y = d.max(1).values",
        ),  # a pandas frame's column has it too
        ("y = torch.max(a, b).values", "y = ms_aux.torch_max(a, b).values"),
        ("y = b.values()", "y = b.values()"),
    ],
)
def test_values_and_indices_of_a_pair_are_read_by_position(
    before: str, after: str
) -> None:
    result = convert_checked(HEAD + f"    {before}\n    return a\n")
    assert f"    {after}\n" in result.code


def test_numpy_max_and_imported_modules_are_left() -> None:
    source = "import numpy as np\nimport torch\n\n\ndef f(x, b):\n    return np.max(x, b), x.max(axis=0)\n"
    assert "np.max(x, b), x.max(axis=0)" in convert_checked(source).code


SOURCE = """\
import torch


def pairwise(a, b, d):
    return (
        torch.max(a, b),
        torch.min(a, b),
        torch.max(a, torch.zeros_like(a)),
        torch.min(a, other=b),
        a.max(b),
        a.min(b),
        torch.max(a, d)[0],
        torch.min(a, d, True)[1],
        torch.max(a),
        a.max(d)[0],
        a.max(d).indices,
        torch.min(a, d).values,
        a.max(dim=1, keepdim=True).values,
        a.topk(2, dim=-1).indices,
        torch.sort(a, dim=0).values,
        # numpy's spelling of the keywords, which torch's argument parser takes too
        torch.max(a, axis=0).values,
        torch.min(a, axis=1, keepdims=True).indices,
    )
"""


@pytest.mark.real
def test_converted_forms_compute_torchs_values(fw, tmp_path) -> None:
    torch, ms = fw
    result = convert_checked(SOURCE)
    (tmp_path / "ms_aux.py").write_text(
        assemble(sorted(result.companion)), encoding="utf-8"
    )
    (tmp_path / "pairwise_converted.py").write_text(result.code, encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        sys.modules.pop("ms_aux", None)
        converted = importlib.import_module("pairwise_converted")
    finally:
        sys.path.remove(str(tmp_path))
    original: dict = {}
    exec(compile(SOURCE, "original.py", "exec"), original)  # noqa: S102 - the original
    rng = np.random.RandomState(0)
    a = rng.standard_normal((3, 4)).astype(np.float32)
    b = rng.standard_normal((1, 4)).astype(np.float32)  # broadcast, as torch allows
    expected = original["pairwise"](torch.tensor(a), torch.tensor(b), 1)
    got = converted.pairwise(ms.Tensor(a), ms.Tensor(b), 1)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g.asnumpy(), e.numpy(), rtol=1e-6, atol=0)


@pytest.mark.real
def test_companion_leaves_numpy_to_numpy(fw, tmp_path) -> None:
    path = tmp_path / "ms_aux_pairwise.py"
    path.write_text(assemble(["tensor_max", "tensor_min"]), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_pairwise", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(module.tensor_max(x, 1), x.max(1))
    np.testing.assert_array_equal(module.tensor_min(x, 0), x.min(0))
