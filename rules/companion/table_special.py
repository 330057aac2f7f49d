"""Companion entries in library/special.py: torch qualified name -> entry name.

Every `torch.special` call goes to its entry rather than to a bare operator: MindSpore's CPU
kernels refuse the integer tensors and Python numbers that torch promotes to float32."""

ENTRIES: dict[str, str] = {
    "torch.special." + name: "special_" + name
    for name in [
        "erf",
        "erfc",
        "erfinv",
        "erfcx",
        "exp2",
        "expm1",
        "log1p",
        "expit",
        "sinc",
        "digamma",
        "psi",
        "gammaln",
        "i0",
        "i0e",
        "i1",
        "i1e",
        "bessel_j0",
        "bessel_j1",
        "ndtr",
        "ndtri",
        "log_ndtr",
        "entr",
        "logit",
        "xlogy",
        "xlog1py",
        "zeta",
        "gammainc",
        "gammaincc",
        "polygamma",
        "multigammaln",
        "logsumexp",
        "softmax",
        "log_softmax",
        "round",
    ]
}
