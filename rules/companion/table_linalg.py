"""Companion entries in library/linalg.py: torch qualified name -> entry name. Where the API
table maps a call to an operator (`inv`, `pinv`, `vector_norm`), these serve the calls it
refuses (`out=`, `dtype=`)."""

ENTRIES: dict[str, str] = {
    "torch.linalg." + name: "linalg_" + name
    for name in [
        "cholesky",
        "cholesky_ex",
        "qr",
        "det",
        "slogdet",
        "inv",
        "inv_ex",
        "eigh",
        "eigvalsh",
        "svd",
        "svdvals",
        "matrix_rank",
        "vector_norm",
        "matrix_norm",
        "norm",
        "cond",
        "householder_product",
        "lu",
        "lu_factor",
        "solve_triangular",
        "solve",
        "matrix_exp",
        "matrix_power",
        "multi_dot",
        "vander",
        "vecdot",
        "cross",
        "diagonal",
        "matmul",
        "pinv",
        "lstsq",
        "lu_factor_ex",
        "solve_ex",
        "lu_solve",
        "tensorinv",
        "tensorsolve",
    ]
}
# The top-level torch forms of the same factorizations and solves.
ENTRIES.update(
    {
        "torch.svd": "legacy_svd",
        "torch.lu": "legacy_lu",
        "torch.pinverse": "pinverse",
        "torch.cholesky_solve": "cholesky_solve",
        "torch.geqrf": "geqrf",
        "torch.ormqr": "ormqr",
        "torch.vander": "vander",
    }
)
