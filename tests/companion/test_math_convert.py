"""torch.linalg, torch.fft, torch.special and torch.signal.windows calls convert to their
`ops` idiom where MindSpore's operator takes torch's arguments, to a companion entry otherwise,
and to a finding where neither is certain (torch.linalg.eig's eigenvalue order)."""

from __future__ import annotations

import pytest
from conftest import convert_checked

HEAD = "import torch\n\n"

CALLS = [
    (
        "y = torch.fft.rfft2(x, s=(4, 2), norm='forward')",
        "y = ops.rfft2(x, s=(4, 2), norm='forward')",
    ),
    ("y = torch.fft.fftfreq(5, 2)", "y = ops.fftfreq(5, d=2.0)"),
    ("y = torch.fft.fft(x, n=2, out=o)", "y = ms_aux.write_out(o, ops.fft(x, n=2))"),
    ("y = torch.fft.hfftn(x, (2, 5))", "y = ms_aux.fft_hfftn(x, (2, 5))"),
    ("y = torch.special.erfinv(x)", "y = ms_aux.special_erfinv(x)"),
    ("y = torch.special.xlog1py(1, x)", "y = ms_aux.special_xlog1py(1, x)"),
    (
        "q, r = torch.linalg.qr(A=x, mode='complete')",
        "q, r = ms_aux.linalg_qr(A=x, mode='complete')",
    ),
    (
        "y = torch.linalg.matrix_rank(x, atol=1.0, hermitian=True)",
        "y = ms_aux.linalg_matrix_rank(x, atol=1.0, hermitian=True)",
    ),
    (
        "w = torch.signal.windows.hann(10, sym=False)",
        "w = ms_aux.windows_hann(10, sym=False)",
    ),
    (
        "w = torch.signal.windows.gaussian(10, std=0.9, dtype=torch.float64, layout=torch.strided)",
        "w = ms_aux.windows_gaussian(10, std=0.9, dtype=mindspore.float64, layout=ms_aux.strided)",
    ),
    ("z = torch.complex(a, b)", "z = ms_aux.complex_tensor(a, b)"),
    ("p = torch.linalg.pinv(input=a, atol=0.1)", "p = ops.pinv(x=a, atol=0.1)"),
    ("p = torch.linalg.pinv(a, rcond=0.1)", "p = ms_aux.linalg_pinv(a, rcond=0.1)"),
    ("n = torch.linalg.vector_norm(input=a, ord=1)", "n = ops.vector_norm(x=a, ord=1)"),
]


@pytest.mark.parametrize(("before", "after"), CALLS, ids=[b for b, _ in CALLS])
def test_call_converts(before: str, after: str) -> None:
    result = convert_checked(HEAD + before + "\n")
    assert after in result.code.splitlines()
    assert "torch" not in result.code
    assert not [f for f in result.findings if f.severity == "error"], result.findings


def test_eig_stays_with_its_reason() -> None:
    result = convert_checked(HEAD + "w = torch.linalg.eigvals(a)\n")
    assert "w = torch.linalg.eigvals(a)" in result.code.splitlines()
    (finding,) = [f for f in result.findings if f.rule == "TM940"]
    assert "order" in finding.hint
