"""`torch.linalg`, with torch's arguments, named results and `out=`: MindSpore operators with CPU
kernels (`ops.cholesky`, `qr`, `svd`, `slogdet`, `orgqr`, `matrix_solve`, `mindspore.scipy.linalg`'s
`eigh`, `lu`, `lu_factor`, `solve_triangular`) and compositions of them. `mindspore.scipy.linalg`
takes one matrix at a time, so a batch is taken matrix by matrix."""

import collections
import math

import mindspore
import numpy as np
from mindspore import nn, ops
from mindspore.scipy import linalg as scipy_linalg

from .outputs import _result_into

# torch.return_types: the fields torch's named results carry.
LinalgEigh = collections.namedtuple("LinalgEigh", ["eigenvalues", "eigenvectors"])
LinalgQR = collections.namedtuple("LinalgQR", ["Q", "R"])
LinalgSlogdet = collections.namedtuple("LinalgSlogdet", ["sign", "logabsdet"])
LinalgSVD = collections.namedtuple("LinalgSVD", ["U", "S", "Vh"])
LinalgLU = collections.namedtuple("LinalgLU", ["P", "L", "U"])
LinalgLUFactor = collections.namedtuple("LinalgLUFactor", ["LU", "pivots"])
LinalgCholeskyEx = collections.namedtuple("LinalgCholeskyEx", ["L", "info"])
LinalgInvEx = collections.namedtuple("LinalgInvEx", ["inverse", "info"])
LinalgLUFactorEx = collections.namedtuple("LinalgLUFactorEx", ["LU", "pivots", "info"])
LinalgSolveEx = collections.namedtuple("LinalgSolveEx", ["result", "info"])
LinalgLstsq = collections.namedtuple(
    "LinalgLstsq", ["solution", "residuals", "rank", "singular_values"]
)


def _results_into(out, results, kind):
    """A named result, each field also written into the matching tensor of `out`."""
    if out is None:
        return kind(*results)
    return kind(*(_result_into(o, r) for o, r in zip(out, results)))


def _per_matrix(function, A):
    """`function` (of one matrix, giving a tuple) over the leading batch dimensions of `A`."""
    if A.ndim == 2:
        return function(A)
    batch = A.shape[:-2]
    flat = A.reshape((-1,) + A.shape[-2:])
    parts = [function(flat[i]) for i in range(flat.shape[0])]
    return tuple(
        ops.stack([p[k] for p in parts]).reshape(batch + parts[0][k].shape)
        for k in range(len(parts[0]))
    )


def _mT(A):
    return ops.swapaxes(A, -1, -2)


def _mH(A):
    return ops.conj(_mT(A)) if A.is_complex() else _mT(A)


def _real_dtype(A):
    return {
        mindspore.complex64: mindspore.float32,
        mindspore.complex128: mindspore.float64,
    }.get(A.dtype, A.dtype)


class _CholeskyFactor(nn.Cell):
    """The lower Cholesky factor, with its gradient composed from operators (MindSpore's
    CholeskyGrad has no CPU kernel): gA = sym(L^-T Phi(L^T dL) L^-1), Phi the lower triangle
    with its diagonal halved."""

    def construct(self, A):
        return ops.cholesky(A)

    def bprop(self, A, L, dL):
        phi = ops.tril(ops.matmul(_mH(L), dL))
        phi = phi - 0.5 * ops.diag_embed(ops.diagonal(phi, 0, -2, -1))
        L_inv = ops.inverse(L)
        gA = ops.matmul(ops.matmul(_mH(L_inv), phi), L_inv)
        return (0.5 * (gA + _mH(gA)),)


_cholesky_factor = _CholeskyFactor()


def linalg_cholesky(input=None, *, upper=False, out=None, A=None):
    """`torch.linalg.cholesky` (differentiable on the CPU through `_CholeskyFactor`)."""
    A = input if A is None else A
    L = _cholesky_factor(A)
    return _result_into(out, _mH(L) if upper else L)


def linalg_cholesky_ex(
    input=None, *, upper=False, check_errors=False, out=None, A=None
):
    """`torch.linalg.cholesky_ex`: MindSpore's kernel raises on a matrix that is not positive
    definite, so a returned `info` is always 0."""
    A = input if A is None else A
    L = linalg_cholesky(A, upper=upper)
    info = ops.zeros(A.shape[:-2], mindspore.int32)
    return _results_into(out, (L, info), LinalgCholeskyEx)


def linalg_qr(A, mode="reduced", *, out=None):
    """`torch.linalg.qr`; mode "r" gives an empty Q, as torch's."""
    if mode == "r":
        _, R = ops.qr(A, "reduced")
        return _results_into(out, (ops.zeros((0,), A.dtype), R), LinalgQR)
    return _results_into(out, ops.qr(A, mode), LinalgQR)


def linalg_det(A, *, out=None):
    """`torch.linalg.det`."""
    return _result_into(out, ops.det(A))


def linalg_slogdet(A, *, out=None):
    """`torch.linalg.slogdet`: (sign, log |det|)."""
    sign, logabsdet = ops.slogdet(A)
    if logabsdet.is_complex():  # MindSpore keeps the input's complex dtype
        logabsdet = logabsdet.real()
    return _results_into(out, (sign, logabsdet), LinalgSlogdet)


def linalg_inv(A, *, out=None):
    """`torch.linalg.inv`."""
    return _result_into(out, ops.inverse(A))


def linalg_inv_ex(A, *, check_errors=False, out=None):
    """`torch.linalg.inv_ex`; `info` is 0 (MindSpore's kernel gives no singularity code)."""
    inverse = ops.inverse(A)
    return _results_into(
        out, (inverse, ops.zeros(A.shape[:-2], mindspore.int32)), LinalgInvEx
    )


def _eigh_one(A, lower):
    values, vectors = scipy_linalg.eigh(A, lower=lower)
    return values.real() if values.is_complex() else values, vectors


def linalg_eigh(input=None, UPLO="L", *, out=None, A=None):
    """`torch.linalg.eigh`: ascending real eigenvalues and the eigenvectors of the triangle UPLO.
    Its gradient (MindSpore's) lies in that triangle, where torch's is symmetric: the two agree
    for an input built symmetric (`B + B.T`), not for a gradient taken on A itself."""
    A = input if A is None else A
    values, vectors = _per_matrix(lambda M: _eigh_one(M, UPLO == "L"), A)
    return _results_into(out, (values.astype(_real_dtype(A)), vectors), LinalgEigh)


def linalg_eigvalsh(input=None, UPLO="L", *, out=None, A=None):
    """`torch.linalg.eigvalsh`."""
    A = input if A is None else A
    return _result_into(out, linalg_eigh(A, UPLO).eigenvalues)


def linalg_svd(A, full_matrices=True, *, driver=None, out=None):
    """`torch.linalg.svd`: (U, S, Vh); MindSpore's svd gives (S, U, V)."""
    S, U, V = ops.svd(A, full_matrices=full_matrices, compute_uv=True)
    return _results_into(out, (U, S, _mH(V)), LinalgSVD)


def linalg_svdvals(A, *, driver=None, out=None):
    """`torch.linalg.svdvals`: the singular values, descending."""
    return _result_into(out, ops.svd(A, compute_uv=False))


def linalg_matrix_rank(
    A=None, tol=None, hermitian=False, *, atol=None, rtol=None, out=None, input=None
):
    """`torch.linalg.matrix_rank`: the singular values (|eigenvalues| when hermitian) above
    max(atol, rtol * largest); rtol defaults to eps * max(m, n) when neither is given."""
    A = input if A is None else A
    if hermitian:
        values = ops.abs(linalg_eigh(A).eigenvalues)
    else:
        values = linalg_svdvals(A)
    if tol is not None:
        atol, rtol = tol, 0.0
    if rtol is None:
        eps = (
            2.220446049250313e-16
            if _real_dtype(A) == mindspore.float64
            else 1.1920929e-07
        )
        rtol = eps * max(A.shape[-2:]) if atol is None else 0.0
    atol = 0.0 if atol is None else atol
    largest = ops.amax(values, -1, keepdims=True)
    threshold = ops.maximum(
        _as_column(atol, values), _as_column(rtol, values) * largest
    )
    rank = (values > threshold).astype(mindspore.int64).sum(-1)
    return _result_into(out, rank)


def _as_column(value, like):
    """A tolerance (a number, or a tensor over the batch) against values of shape (..., k)."""
    if isinstance(value, mindspore.Tensor):
        return value.astype(like.dtype).expand_dims(-1)
    return mindspore.tensor(value, like.dtype)


def linalg_vector_norm(
    x=None, ord=2, dim=None, keepdim=False, *, dtype=None, out=None, input=None
):
    """`torch.linalg.vector_norm`."""
    x = input if x is None else x
    if dtype is not None:
        x = x.astype(dtype)
    a = ops.abs(x)
    if dim is None:
        axis = tuple(range(x.ndim))
    else:
        axis = tuple(dim) if isinstance(dim, (list, tuple)) else (dim,)
    if ord == math.inf:
        result = ops.amax(a, axis, keepdims=keepdim)
    elif ord == -math.inf:
        result = ops.amin(a, axis, keepdims=keepdim)
    elif ord == 0:
        result = (a != 0).astype(a.dtype).sum(axis, keepdims=keepdim)
    elif ord == 1:
        result = a.sum(axis, keepdims=keepdim)
    elif ord == 2:
        result = ops.sqrt((a * a).sum(axis, keepdims=keepdim))
    else:
        result = ops.pow(ops.pow(a, ord).sum(axis, keepdims=keepdim), 1.0 / ord)
    return _result_into(out, result)


def linalg_matrix_norm(
    input=None, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None, A=None
):
    """`torch.linalg.matrix_norm`: "fro", "nuc", +-inf, +-1, +-2 over the two dimensions `dim`."""
    A = input if A is None else A
    if dtype is not None:
        A = A.astype(dtype)
    rows, cols = (d % A.ndim for d in dim)
    a = ops.abs(A)
    if ord == "fro":
        result = ops.sqrt((a * a).sum((rows, cols), keepdims=keepdim))
    elif ord in ("nuc", 2, -2):
        moved = ops.movedim(A, (rows, cols), (-2, -1))
        values = ops.svd(moved, compute_uv=False)
        if ord == "nuc":
            result = values.sum(-1)
        else:
            result = values[..., 0] if ord == 2 else values[..., -1]
        if keepdim:
            result = result.expand_dims(min(rows, cols)).expand_dims(max(rows, cols))
    elif ord in (math.inf, -math.inf, 1, -1):
        summed, reduced = (cols, rows) if ord in (math.inf, -math.inf) else (rows, cols)
        sums = a.sum(summed, keepdims=True)
        pick = ops.amax if ord > 0 else ops.amin
        result = pick(sums, reduced, keepdims=True)
        if not keepdim:
            result = result.squeeze((rows, cols))
    else:
        raise ValueError(f"matrix_norm: unsupported ord {ord!r}")
    return _result_into(out, result)


def linalg_norm(
    input=None, ord=None, dim=None, keepdim=False, *, out=None, dtype=None, A=None
):
    """`torch.linalg.norm`: a matrix norm for a string ord or two dims (or a 2-d input with ord
    and no dim), the vector 2-norm of all elements when both ord and dim are None."""
    A = input if A is None else A
    if dim is not None and not isinstance(dim, (list, tuple)):
        dim = (dim,)
    matrix = isinstance(ord, str) or (dim is not None and len(dim) == 2)
    if ord is not None and dim is None and A.ndim == 2:
        matrix = True
    if matrix:
        return linalg_matrix_norm(
            A,
            "fro" if ord is None else ord,
            dim or (-2, -1),
            keepdim,
            dtype=dtype,
            out=out,
        )
    return linalg_vector_norm(
        A, 2 if ord is None else ord, dim, keepdim, dtype=dtype, out=out
    )


def linalg_cond(input=None, p=None, *, out=None, A=None):
    """`torch.linalg.cond`: sigma_max / sigma_min for p None or +-2, else
    norm(A, p) * norm(inv(A), p)."""
    A = input if A is None else A
    if p in (None, 2, -2):
        values = ops.svd(A, compute_uv=False)
        result = values[..., 0] / values[..., -1]
        if p == -2:
            result = values[..., -1] / values[..., 0]
    else:
        result = linalg_matrix_norm(A, p) * linalg_matrix_norm(ops.inverse(A), p)
    return _result_into(out, result)


def linalg_householder_product(input=None, tau=None, *, out=None, A=None):
    """`torch.linalg.householder_product` (LAPACK's orgqr)."""
    A = input if A is None else A
    return _result_into(out, ops.orgqr(A, tau))


def _lu_one(A):
    P, L, U = scipy_linalg.lu(A)
    return P.astype(A.dtype), L, U


def linalg_lu(A, *, pivot=True, out=None):
    """`torch.linalg.lu`: A = P L U with partial pivoting."""
    if not pivot:
        raise NotImplementedError("lu without pivoting has no MindSpore CPU kernel")
    return _results_into(out, _per_matrix(_lu_one, A), LinalgLU)


def _lu_factor_one(A):
    LU, pivots = scipy_linalg.lu_factor(A)
    return LU, pivots.astype(mindspore.int32) + 1


def linalg_lu_factor(A, *, pivot=True, out=None):
    """`torch.linalg.lu_factor`: the packed LU and torch's 1-based pivots."""
    if not pivot:
        raise NotImplementedError(
            "lu_factor without pivoting has no MindSpore CPU kernel"
        )
    return _results_into(out, _per_matrix(_lu_factor_one, A), LinalgLUFactor)


def linalg_solve_triangular(
    A=None, B=None, *, upper, left=True, unitriangular=False, out=None, input=None
):
    """`torch.linalg.solve_triangular`: X with A X = B (X A = B when left is False)."""
    A = input if A is None else A
    if not left:
        X = scipy_linalg.solve_triangular(
            _mT(A), _mT(B), lower=upper, unit_diagonal=unitriangular
        )
        return _result_into(out, _mT(X))
    X = scipy_linalg.solve_triangular(
        A, B, lower=not upper, unit_diagonal=unitriangular
    )
    return _result_into(out, X)


def linalg_solve(A, B, *, left=True, out=None):
    """`torch.linalg.solve`: X with A X = B (X A = B when left is False); a B with one dimension
    fewer than A is a (batch of) vector(s)."""
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])
    if vector:
        B = B.expand_dims(-1)
    if left:
        X = ops.matrix_solve(A, B)
    else:
        X = _mT(ops.matrix_solve(_mT(A), _mT(B)))
    return _result_into(out, X.squeeze(-1) if vector else X)


def linalg_matrix_exp(input=None, *, A=None):
    """`torch.linalg.matrix_exp`: scaling and squaring with an 18-term Taylor series, in float64
    (MindSpore's MatrixExp has no CPU kernel)."""
    A = input if A is None else A
    wide = A.astype(mindspore.complex128 if A.is_complex() else mindspore.float64)
    norm = float(ops.abs(wide).sum(-1).max().asnumpy()) if wide.size else 0.0
    squarings = max(0, math.ceil(math.log2(norm)) + 1) if norm > 0 else 0
    X = wide / (2.0**squarings)
    identity = ops.eye(A.shape[-1], A.shape[-1], wide.dtype)
    result = identity + ops.zeros_like(X)
    term = result
    for k in range(1, 19):
        term = ops.matmul(term, X) / k
        result = result + term
    for _ in range(squarings):
        result = ops.matmul(result, result)
    return result.astype(A.dtype)


def linalg_matrix_power(input=None, n=None, *, out=None, A=None):
    """`torch.linalg.matrix_power`, negative n through the inverse."""
    A = input if A is None else A
    if n < 0:
        A, n = ops.inverse(A), -n
    result = ops.eye(A.shape[-1], A.shape[-1], A.dtype) + ops.zeros_like(A)
    base = A
    while n:
        if n & 1:
            result = ops.matmul(result, base)
        n >>= 1
        if n:
            base = ops.matmul(base, base)
    return _result_into(out, result)


def linalg_multi_dot(tensors, *, out=None):
    """`torch.linalg.multi_dot`: a leading 1-d operand is a row, a trailing one a column."""
    first, last = tensors[0], tensors[-1]
    items = list(tensors)
    if first.ndim == 1:
        items[0] = first.expand_dims(0)
    if last.ndim == 1:
        items[-1] = last.expand_dims(-1)
    result = items[0]
    for item in items[1:]:
        result = ops.matmul(result, item)
    if last.ndim == 1:
        result = result.squeeze(-1)
    if first.ndim == 1:
        result = result.squeeze(0)
    return _result_into(out, result)


def linalg_vander(x, *, N=None):
    """`torch.linalg.vander`: the powers x^0 .. x^(N-1) along a new last dimension."""
    count = x.shape[-1] if N is None else N
    columns = [ops.ones_like(x)]
    for _ in range(1, count):
        columns.append(columns[-1] * x)
    return ops.stack(columns[:count], -1)


def linalg_vecdot(x, y, *, dim=-1, out=None):
    """`torch.linalg.vecdot`: sum(conj(x) * y) over `dim`."""
    if x.is_complex():
        x = ops.conj(x)
    return _result_into(out, (x * y).sum(dim))


def linalg_cross(input, other, *, dim=-1, out=None):
    """`torch.linalg.cross`, the two inputs broadcast to one shape."""
    a, b = input + ops.zeros_like(other), other + ops.zeros_like(input)
    return _result_into(out, ops.cross(a, b, dim))


def linalg_diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """`torch.linalg.diagonal`."""
    return ops.diagonal(A, offset, dim1, dim2)


def linalg_matmul(input, other, *, out=None):
    """`torch.linalg.matmul`."""
    return _result_into(out, ops.matmul(input, other))


def linalg_pinv(
    A=None, rcond=None, hermitian=False, *, atol=None, rtol=None, out=None, input=None
):
    """`torch.linalg.pinv`; the older `rcond` is a relative cutoff, MindSpore's rtol."""
    A = input if A is None else A
    if rcond is not None:
        rtol = rcond
    return _result_into(out, ops.pinv(A, atol=atol, rtol=rtol, hermitian=hermitian))


def linalg_lstsq(input=None, b=None, rcond=None, *, driver=None, A=None, B=None):
    """`torch.linalg.lstsq` as torch computes it on the CPU (driver gelsy): the minimum-norm
    solution and the rank; residuals and singular values are empty, as gelsy leaves them."""
    A = input if A is None else A
    B = b if B is None else B
    vector = B.ndim == A.ndim - 1
    rhs = B.expand_dims(-1) if vector else B
    solution = ops.matmul(ops.pinv(A), rhs)
    if vector:
        solution = solution.squeeze(-1)
    empty = ops.zeros((0,), _real_dtype(A))
    rank = linalg_matrix_rank(A) if rcond is None else linalg_matrix_rank(A, rtol=rcond)
    return LinalgLstsq(solution, empty, rank, empty)


def linalg_lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """`torch.linalg.lu_factor_ex`: `lu_factor` and an `info` of 0 (MindSpore's kernel reports
    no singular pivot)."""
    LU, pivots = linalg_lu_factor(A, pivot=pivot)
    info = ops.zeros(A.shape[:-2], mindspore.int32)
    return _results_into(out, (LU, pivots, info), LinalgLUFactorEx)


def linalg_solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """`torch.linalg.solve_ex`: `solve` and an `info` of 0."""
    result = linalg_solve(A, B, left=left)
    info = ops.zeros(A.shape[:-2], mindspore.int32)
    return _results_into(out, (result, info), LinalgSolveEx)


def _lu_permutation(pivots, n, dtype):
    """P^T as matrices, from LAPACK's 1-based row interchanges (P^T A = L U)."""
    swaps = pivots.asnumpy().reshape(-1, pivots.shape[-1]) - 1
    matrices = []
    for row in swaps:
        order = np.arange(n)
        for i, j in enumerate(row):
            order[i], order[j] = order[j], order[i]
        matrices.append(np.eye(n)[order])
    shape = tuple(pivots.shape[:-1]) + (n, n)
    return mindspore.Tensor(np.stack(matrices).reshape(shape), dtype)


def linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """`torch.linalg.lu_solve`: X with A X = B from `lu_factor`'s (LU, pivots), A^H X = B when
    adjoint, X A = B when not left; by two triangular solves and the row permutation."""
    if not left:
        # X A = B is A^H X^H = B^H (and X A^H = B is A X^H = B^H).
        X = linalg_lu_solve(LU, pivots, _mH(B), adjoint=not adjoint)
        return _result_into(out, _mH(X))
    n = LU.shape[-1]
    L = ops.tril(LU, -1) + ops.eye(n, n, LU.dtype)
    U = ops.triu(LU)
    permute = _lu_permutation(pivots, n, LU.dtype)
    if not adjoint:
        Y = scipy_linalg.solve_triangular(L, ops.matmul(permute, B), lower=True)
        X = scipy_linalg.solve_triangular(U, Y, lower=False)
    else:
        Y = scipy_linalg.solve_triangular(_mH(U), B, lower=True)
        Y = scipy_linalg.solve_triangular(_mH(L), Y, lower=False)
        X = ops.matmul(_mH(permute), Y)
    return _result_into(out, X)


def linalg_tensorinv(A, ind=2, *, out=None):
    """`torch.linalg.tensorinv`: the inverse of A read as a matrix of its first `ind` dimensions
    by the rest."""
    rows = math.prod(A.shape[:ind])
    inverse = ops.inverse(A.reshape(rows, -1))
    return _result_into(out, inverse.reshape(A.shape[ind:] + A.shape[:ind]))


def linalg_tensorsolve(A, B, dims=None, *, out=None):
    """`torch.linalg.tensorsolve`: X with tensordot(A, X, X.ndim) = B; `dims` of A are moved
    to the end first."""
    if dims is not None:
        dims = [d % A.ndim for d in dims]
        kept = [d for d in range(A.ndim) if d not in dims]
        A = ops.transpose(A, tuple(kept + dims))
    rest = A.shape[B.ndim :]
    X = ops.matrix_solve(A.reshape(B.size, -1), B.reshape(-1, 1))
    return _result_into(out, X.reshape(rest))


# The top-level torch forms of the factorizations (torch.svd, torch.lu, ...).
TorchSVD = collections.namedtuple("TorchSVD", ["U", "S", "V"])
TorchGeqrf = collections.namedtuple("TorchGeqrf", ["a", "tau"])


def legacy_svd(input, some=True, compute_uv=True, *, out=None):
    """`torch.svd`: (U, S, V) with V, not its adjoint; without compute_uv, U and V are zero
    matrices of the full sizes, as torch's."""
    if compute_uv:
        S, U, V = ops.svd(input, full_matrices=not some, compute_uv=True)
    else:
        S = ops.svd(input, compute_uv=False)
        m, n = input.shape[-2:]
        U = ops.zeros(input.shape[:-2] + (m, m), input.dtype)
        V = ops.zeros(input.shape[:-2] + (n, n), input.dtype)
    return _results_into(out, (U, S, V), TorchSVD)


def legacy_lu(A=None, pivot=True, get_infos=False, out=None, *, input=None):
    """`torch.lu`: `torch.linalg.lu_factor`'s (LU, pivots), and the infos (0) when asked."""
    A = input if A is None else A
    LU, pivots = linalg_lu_factor(A, pivot=pivot)
    results = (LU, pivots)
    if get_infos:
        results += (ops.zeros(A.shape[:-2], mindspore.int32),)
    if out is None:
        return results
    return tuple(_result_into(o, r) for o, r in zip(out, results))


def pinverse(input, rcond=1e-15):
    """`torch.pinverse`: the pseudo-inverse with singular values below rcond * largest cut."""
    return ops.pinv(input, rtol=rcond)


def cholesky_solve(input, input2, upper=False, *, out=None):
    """`torch.cholesky_solve`: X with A X = input, A given by its Cholesky factor input2."""
    return _result_into(out, ops.cholesky_solve(input, input2, upper))


def geqrf(input, *, out=None):
    """`torch.geqrf`: LAPACK's packed QR (the reflectors below R, and their scales tau)."""
    return _results_into(out, ops.geqrf(input), TorchGeqrf)


def ormqr(input, input2, input3, left=True, transpose=False, *, out=None):
    """`torch.ormqr`: the product of the full Q of a `geqrf` result with input3 (MindSpore's
    Ormqr has no CPU kernel: Q is built by orgqr from the reflectors padded to a square)."""
    m = input.shape[-2]
    missing = m - input.shape[-1]
    reflectors, tau = input, input2
    if missing > 0:
        reflectors = ops.concat(
            (input, ops.zeros(input.shape[:-1] + (missing,), input.dtype)), -1
        )
    if m - tau.shape[-1] > 0:
        tau = ops.concat(
            (tau, ops.zeros(tau.shape[:-1] + (m - tau.shape[-1],), tau.dtype)), -1
        )
    Q = ops.orgqr(reflectors[..., :m], tau[..., :m])
    if transpose:
        Q = _mH(Q)
    result = ops.matmul(Q, input3) if left else ops.matmul(input3, Q)
    return _result_into(out, result)


def vander(x, N=None, increasing=False):
    """`torch.vander`: decreasing powers x^(N-1) .. x^0 unless `increasing`."""
    powers = linalg_vander(x, N=N)
    return powers if increasing else ops.flip(powers, (-1,))
