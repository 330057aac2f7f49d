"""`torch.fft`: MindSpore's `ops` transforms take torch's arguments and return torch's dtypes
(complex64 for integer and float32 input, complex128 for float64) on the CPU.

`hfft`, `ihfft` and their 2-d and n-d forms are companion entries: MindSpore 2.10's CPU kernels
for them return a different result on every other call with the same input (measured), so they
are composed from `irfft`/`rfft` and `conj`."""

from __future__ import annotations

from .entries import fn

# name, torch's parameters, sample arguments
_TRANSFORMS = [
    ("fft", ("input", "n", "dim", "norm"), ("c64[3,4]", 6, 0, "ortho")),
    ("ifft", ("input", "n", "dim", "norm"), ("c64[3,4]", 2, 1, "forward")),
    ("rfft", ("input", "n", "dim", "norm"), ("f32[3,4]", 5, 0, "ortho")),
    ("irfft", ("input", "n", "dim", "norm"), ("c64[3,4]", 5, 1, "forward")),
    ("fft2", ("input", "s", "dim", "norm"), ("c64[3,4]", (2, 3), (0, 1), "forward")),
    ("ifft2", ("input", "s", "dim", "norm"), ("c64[3,4]", (2, 3), (0, 1), "ortho")),
    ("rfft2", ("input", "s", "dim", "norm"), ("f32[3,4]", (4, 2), (0, 1), "forward")),
    ("irfft2", ("input", "s", "dim", "norm"), ("c64[3,4]", (4, 2), (0, 1), "ortho")),
    ("fftn", ("input", "s", "dim", "norm"), ("c64[2,3,4]", (2, 3), (0, 2), "ortho")),
    ("ifftn", ("input", "s", "dim", "norm"), ("c64[2,3,4]", (2, 3), (0, 1), "forward")),
    ("rfftn", ("input", "s", "dim", "norm"), ("f32[2,3,4]", (2,), (1,), "ortho")),
    (
        "irfftn",
        ("input", "s", "dim", "norm"),
        ("c64[2,3,4]", (2, 5), (0, 1), "forward"),
    ),
    ("fftshift", ("input", "dim"), ("f32[3,4]", (0,))),
    ("ifftshift", ("input", "dim"), ("f32[3,5]", 1)),
]

_FREQUENCIES = [
    fn(
        "torch.fft." + name,
        params=("n", "d"),
        sample=(5, 2),
        sample_kwargs={"dtype": "dtype:float64"},
        transform={"d": "as_float"},
        note="MindSpore's spacing d must be a float",
    )
    for name in ("fftfreq", "rfftfreq")
]

TABLE = tuple(
    [
        fn("torch.fft." + name, params=params, sample=sample)
        for name, params, sample in _TRANSFORMS
    ]
    + _FREQUENCIES
)
