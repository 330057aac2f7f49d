"""`torch.stft` and `torch.istft` with torch's arguments, framed by slicing and transformed with
MindSpore's `ops.rfft` / `ops.fft` / `ops.irfft` / `ops.ifft`, which run on the CPU."""

from mindspore import ops


def _stft_window(window, win_length, n_fft, dtype):
    """torch's window: ones of `win_length` when none is given, centred in `n_fft` with zeros."""
    if window is None:
        window = ops.ones(win_length, dtype)
    left = (n_fft - window.shape[0]) // 2
    if left or window.shape[0] < n_fft:
        right = n_fft - window.shape[0] - left
        window = ops.cat(
            [ops.zeros(left, window.dtype), window, ops.zeros(right, window.dtype)]
        )
    return window


def _as_complex(x):
    """A real tensor as the complex one with no imaginary part."""
    return ops.Complex()(x, ops.zeros_like(x))


def stft(
    input,
    n_fft,
    hop_length=None,
    win_length=None,
    window=None,
    center=True,
    pad_mode="reflect",
    normalized=False,
    onesided=None,
    return_complex=None,
    align_to_window=None,
):
    """`torch.stft`: frames `hop_length` apart (n_fft // 4 by default) of the signal, padded by
    n_fft // 2 on both sides with `pad_mode` when `center`, times the window, Fourier-transformed
    along the frame: (…, frequencies, frames)."""
    if align_to_window:
        raise NotImplementedError(
            "stft(align_to_window=True): frames aligned to the window are not composed; "
            "pad the signal by (n_fft - win_length) // 2 and pass center=False"
        )
    complex_input = input.is_complex() or (window is not None and window.is_complex())
    if return_complex is None and not complex_input:
        raise RuntimeError(
            "stft requires the return_complex parameter be given for real inputs"
        )
    if return_complex is None:
        return_complex = True
    hop = hop_length if hop_length is not None else n_fft // 4
    win_length = win_length if win_length is not None else n_fft
    batched = input.ndim == 2
    x = input if batched else input.reshape(1, -1)
    if center:
        pad = n_fft // 2
        x = ops.pad(x.reshape(x.shape[0], 1, -1), (pad, pad), mode=pad_mode)
        x = x.reshape(x.shape[0], -1)
    frames_count = 1 + (x.shape[-1] - n_fft) // hop
    frames = ops.stack(
        [x[:, i * hop : i * hop + n_fft] for i in range(frames_count)], axis=-1
    )
    real_dtype = ops.real(x).dtype if x.is_complex() else x.dtype
    window = _stft_window(window, win_length, n_fft, real_dtype)
    # MindSpore's CPU Mul takes one dtype: a real factor of a complex one is made complex.
    if frames.is_complex() and not window.is_complex():
        window = _as_complex(window)
    elif window.is_complex() and not frames.is_complex():
        frames = _as_complex(frames)
    frames = frames * window.reshape(-1, 1)
    if onesided is None:
        onesided = not complex_input
    if onesided:
        spectrum = ops.rfft(frames, dim=1)
    else:
        spectrum = ops.fft(frames, dim=1)
    if normalized:
        spectrum = spectrum * (n_fft**-0.5)
    if not batched:
        spectrum = spectrum[0]
    if return_complex:
        return spectrum
    return ops.stack([ops.real(spectrum), ops.imag(spectrum)], axis=-1)


def istft(
    input,
    n_fft,
    hop_length=None,
    win_length=None,
    window=None,
    center=True,
    normalized=False,
    onesided=None,
    length=None,
    return_complex=False,
):
    """`torch.istft`: each frame's inverse transform times the window, overlapped and added
    `hop_length` apart, divided by the overlapped squared window; the n_fft // 2 padding of a
    centred `stft` is cut off (or the signal cut to `length`)."""
    hop = hop_length if hop_length is not None else n_fft // 4
    win_length = win_length if win_length is not None else n_fft
    batched = input.ndim == 3
    spectrum = input if batched else input.reshape((1,) + tuple(input.shape))
    if normalized:
        spectrum = spectrum * (n_fft**0.5)
    if onesided is None:
        onesided = spectrum.shape[1] != n_fft
    if onesided:
        frames = ops.irfft(spectrum, n=n_fft, dim=1)
    else:
        frames = ops.ifft(spectrum, n=n_fft, dim=1)
        if not return_complex:
            frames = ops.real(frames)
    real_dtype = ops.real(spectrum[:1, :1, :1]).dtype
    w = _stft_window(window, win_length, n_fft, real_dtype)
    frames = frames * w.reshape(-1, 1)
    count = frames.shape[-1]
    total = n_fft + hop * (count - 1)
    signal = 0
    envelope = 0
    for i in range(count):
        before, after = i * hop, total - i * hop - n_fft
        signal = signal + ops.pad(frames[:, :, i], (before, after))
        envelope = envelope + ops.pad(w * w, (before, after))
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + length
    else:
        end = total - n_fft // 2 if center else total
    signal = signal[:, start:end] / envelope[start:end]
    if length is not None and signal.shape[-1] < length:
        signal = ops.pad(signal, (0, length - signal.shape[-1]))
    return signal if batched else signal[0]
