"""Companion entries in library/fft.py: torch qualified name -> entry name. The API table maps
plain calls to `ops`; these serve the calls it refuses (`out=`, `requires_grad=`)."""

ENTRIES: dict[str, str] = {
    "torch.fft." + name: "fft_" + name
    for name in [
        "fft",
        "ifft",
        "rfft",
        "irfft",
        "hfft",
        "ihfft",
        "fft2",
        "ifft2",
        "rfft2",
        "irfft2",
        "hfft2",
        "ihfft2",
        "fftn",
        "ifftn",
        "rfftn",
        "irfftn",
        "hfftn",
        "ihfftn",
        "fftfreq",
        "rfftfreq",
    ]
}
# Complex tensors built from real ones (MindSpore has `ops.Complex`, no functional form).
ENTRIES["torch.complex"] = "complex_tensor"
ENTRIES["torch.view_as_complex"] = "view_as_complex"
