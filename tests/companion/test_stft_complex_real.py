"""The companion's `stft` of complex signals and complex windows, on the real frameworks.

MindSpore 2.10's CPU Mul takes one dtype, so a real window times complex frames (or a complex
window times real frames) is made complex first; the values are torch's."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest
from torch2ms.rules.companion import assemble

SIGNAL = np.array(
    [[5.9 + 0j, 5.3 + 0j, 0.06j, -0.06 - 0.63j, 0.63 + 0j, 0.2j, -0.5 + 0j, 0.13 + 0j]],
    dtype=np.complex64,
)
CASES = [
    ("complex signal, real window", SIGNAL, [2.0, 1.0, 2.0, 1.0], False, True),
    ("complex signal, real window, pairs", SIGNAL, [2.0, 1.0, 2.0, 1.0], False, False),
    ("complex signal, no window", SIGNAL[0], None, False, True),
    ("real signal, complex window", SIGNAL.real, [1 + 1j, 2.0, 1.0, -1j], False, True),
]


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    path = tmp_path_factory.mktemp("companion") / "ms_aux_stft.py"
    path.write_text(assemble(["stft"]), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_stft", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["ms_aux_stft"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.real
@pytest.mark.parametrize(("label", "signal", "window", "onesided", "as_complex"), CASES)
def test_stft_of_complex_values(label, signal, window, onesided, as_complex, fw, aux):
    torch, ms = fw
    dtype = (
        np.complex64 if window is not None and np.iscomplexobj(window) else np.float32
    )
    kwargs = {"hop_length": 1, "onesided": onesided, "return_complex": as_complex}
    expected = torch.stft(
        torch.tensor(signal),
        4,
        window=None if window is None else torch.tensor(np.array(window, dtype)),
        **kwargs,
    )
    got = aux.stft(
        ms.tensor(signal),
        4,
        window=None if window is None else ms.tensor(np.array(window, dtype)),
        **kwargs,
    )
    assert str(got.dtype).lower() == str(expected.dtype).replace("torch.", ""), label
    np.testing.assert_allclose(
        got.asnumpy(), expected.numpy(), rtol=1e-5, atol=1e-5, err_msg=label
    )
