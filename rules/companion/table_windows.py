"""Companion entries in library/windows.py: torch qualified name -> entry name."""

W = "torch.signal.windows."

ENTRIES: dict[str, str] = {
    W + name: "windows_" + name
    for name in (
        "bartlett",
        "blackman",
        "cosine",
        "exponential",
        "gaussian",
        "general_cosine",
        "general_hamming",
        "hamming",
        "hann",
        "kaiser",
        "nuttall",
    )
}
# A layout argument names the one layout MindSpore tensors have.
ENTRIES["torch.strided"] = "strided"
