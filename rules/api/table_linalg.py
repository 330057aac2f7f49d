"""`torch.linalg` APIs with no certain MindSpore form, each with the reason; the others are
companion entries (rules/companion/library/linalg.py) or rows of table_torch (`inv`, `pinv`,
`vector_norm`)."""

from __future__ import annotations

from .entries import report

_ORDER = (
    "MindSpore's ops.eig returns the eigenvalues in another order than LAPACK's geev, which "
    "torch returns, and the order is not defined by either; sort both sides (by real part, "
    "then imaginary) where the order matters: `ops.eig(A)`"
)

_LDL = (
    "MindSpore has no LDL^T factorization (LAPACK's sytrf with Bunch-Kaufman pivoting), and its "
    "packed factors and pivots cannot be rebuilt from the factorizations it has; solve with "
    "`ops.matrix_solve(A, B)` or factor with `ops.cholesky` where A is positive definite"
)

TABLE = (
    report("torch.linalg.eig", _ORDER, "mindspore.ops.eig"),
    report("torch.linalg.eigvals", _ORDER, "mindspore.ops.eigvals"),
    report("torch.linalg.ldl_factor", _LDL),
    report("torch.linalg.ldl_factor_ex", _LDL),
    report("torch.linalg.ldl_solve", _LDL),
)
