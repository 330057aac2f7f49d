"""`torch.linalg` APIs with no certain MindSpore form; the others are companion entries
(rules/companion/library/linalg.py) or rows of table_torch (`inv`, `pinv`, `vector_norm`)."""

from __future__ import annotations

from .entries import report

_ORDER = (
    "MindSpore's ops.eig returns the eigenvalues in another order than LAPACK's geev, which "
    "torch returns, and the order is not defined by either; sort both sides (by real part, "
    "then imaginary) where the order matters: `ops.eig(A)`"
)

TABLE = (
    report("torch.linalg.eig", _ORDER, "mindspore.ops.eig"),
    report("torch.linalg.eigvals", _ORDER, "mindspore.ops.eigvals"),
    report(
        "torch.linalg.lu_solve",
        "MindSpore's lu_solve takes 0-based pivots in a (LU, pivots) pair and no `left`/"
        "`adjoint`; with torch's 1-based pivots write "
        "`mindspore.scipy.linalg.lu_solve((LU, pivots - 1), B)` for one matrix",
        "mindspore.scipy.linalg.lu_solve",
    ),
)
