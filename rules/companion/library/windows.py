"""`torch.signal.windows`, with torch's arguments: each window is computed in float64 from its
definition and returned in torch's dtype (float32 unless `dtype=` says float64)."""

import math

import mindspore
import numpy as np

# torch's dense layout marker: MindSpore tensors are always dense, so it selects nothing here.
strided = "strided"


def _window_values(values, dtype):
    """A MindSpore tensor of the window values in `dtype` (torch's default float32)."""
    dtype = mindspore.float32 if dtype is None else dtype
    if dtype not in (mindspore.float32, mindspore.float64):
        raise ValueError(f"window functions take float32 or float64, got {dtype}")
    return mindspore.Tensor(np.asarray(values, dtype=np.float64), dtype)


def _window_grid(M, start, step):
    """M points `start, start + step, ...` (torch's linspace over the window)."""
    if M < 0:
        raise ValueError(f"window length must be non-negative, got M={M}")
    return start + step * np.arange(M, dtype=np.float64)


def windows_general_cosine(
    M, *, a, sym=True, dtype=None, layout=None, device=None, requires_grad=False
):
    """`torch.signal.windows.general_cosine`: sum of (-1)^i a_i cos(2 pi i n / N)."""
    if M <= 1:
        return _window_values(np.ones(M), dtype)
    coefficients = [float(c) for c in a]
    if not coefficients:
        raise ValueError("general_cosine needs at least one coefficient")
    k = _window_grid(M, 0.0, 2 * math.pi / (M - 1 if sym else M))
    values = sum((-1) ** i * c * np.cos(i * k) for i, c in enumerate(coefficients))
    return _window_values(values, dtype)


def windows_general_hamming(
    M,
    *,
    alpha=0.54,
    sym=True,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
):
    """`torch.signal.windows.general_hamming`: alpha - (1 - alpha) cos(2 pi n / N)."""
    return windows_general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype)


def windows_hamming(
    M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False
):
    """`torch.signal.windows.hamming`."""
    return windows_general_hamming(M, alpha=0.54, sym=sym, dtype=dtype)


def windows_hann(
    M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False
):
    """`torch.signal.windows.hann`."""
    return windows_general_hamming(M, alpha=0.5, sym=sym, dtype=dtype)


def windows_blackman(
    M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False
):
    """`torch.signal.windows.blackman`."""
    return windows_general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype)


def windows_nuttall(
    M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False
):
    """`torch.signal.windows.nuttall` (the minimum 4-term Blackman-Harris window)."""
    return windows_general_cosine(
        M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym, dtype=dtype
    )


def windows_bartlett(
    M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False
):
    """`torch.signal.windows.bartlett`: the triangular window 1 - |2n/N - 1|."""
    if M <= 1:
        return _window_values(np.ones(M), dtype)
    k = _window_grid(M, -1.0, 2.0 / (M - 1 if sym else M))
    return _window_values(1.0 - np.abs(k), dtype)


def windows_cosine(
    M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False
):
    """`torch.signal.windows.cosine`: sin(pi (n + 0.5) / N)."""
    step = math.pi / (M + 1 if not sym and M > 1 else M) if M else 0.0
    return _window_values(np.sin(_window_grid(M, 0.5 * step, step)), dtype)


def windows_exponential(
    M,
    *,
    center=None,
    tau=1.0,
    sym=True,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
):
    """`torch.signal.windows.exponential`: exp(-|n - center| / tau)."""
    if tau <= 0:
        raise ValueError(f"tau must be positive, got {tau}")
    if sym and center is not None:
        raise ValueError("center must be None for symmetric windows")
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    k = _window_grid(M, -center / tau, 1.0 / tau)
    return _window_values(np.exp(-np.abs(k)), dtype)


def windows_gaussian(
    M, *, std=1.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False
):
    """`torch.signal.windows.gaussian`: exp(-((n - N/2) / std)^2 / 2)."""
    if std <= 0:
        raise ValueError(f"std must be positive, got {std}")
    scale = 1.0 / (std * math.sqrt(2))
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    k = _window_grid(M, start * scale, scale)
    return _window_values(np.exp(-(k**2)), dtype)


def windows_kaiser(
    M, *, beta=12.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False
):
    """`torch.signal.windows.kaiser`: I0(beta sqrt(1 - (2n/N - 1)^2)) / I0(beta)."""
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got {beta}")
    if M <= 1:
        return _window_values(np.ones(M), dtype)
    k = np.minimum(_window_grid(M, -beta, 2.0 * beta / (M - 1 if sym else M)), beta)
    return _window_values(
        np.i0(np.sqrt(np.maximum(beta * beta - k**2, 0.0))) / np.i0(beta), dtype
    )
