"""Companion entries in library/special.py: torch qualified name -> entry name. Where the API
table maps a call to an operator, these serve the calls it refuses (`out=`, `*args`)."""

ENTRIES: dict[str, str] = {
    "torch.special." + name: "special_" + name
    for name in (
        "erf erfc erfinv erfcx exp2 expm1 log1p expit sinc digamma psi gammaln i0 i0e i1 i1e "
        "bessel_j0 bessel_j1 ndtr ndtri log_ndtr entr logit xlogy xlog1py zeta gammainc "
        "gammaincc polygamma multigammaln logsumexp softmax log_softmax round"
    ).split()
}
