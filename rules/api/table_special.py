"""`torch.special` APIs with no certain MindSpore form; the others are companion entries
(rules/companion/library/special.py)."""

from __future__ import annotations

from .entries import report

TABLE = (
    report(
        "torch.special.airy_ai",
        "MindSpore has no Airy function kernel, and no operator from which its power series "
        "and asymptotic expansions compose to torch's precision over the whole real line; "
        "compute it outside the graph (`scipy.special.airy(x.asnumpy())[0]`)",
    ),
)
