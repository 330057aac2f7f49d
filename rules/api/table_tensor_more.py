"""Tensor methods MindSpore 2.10 lacks or cannot run on CPU; a companion entry serves each
(rules/companion/table_tensor_ops.py), and the note says what to write where it cannot."""

from __future__ import annotations

from .entries import report

_NOTES = {
    "quantile": "MindSpore's quantile has no CPU kernel and takes `axis=`; sort and interpolate",
    "nanquantile": "MindSpore's nanquantile has no CPU kernel and takes `axis=`; sort and "
    "interpolate over the numbers",
    "index_copy": "MindSpore's index_copy has no CPU kernel; "
    "`ops.tensor_scatter_update` on the moved axis",
    "index_put": "MindSpore's index_put has no CPU kernel; `ops.tensor_scatter_update`",
    "masked_scatter": "MindSpore's masked_scatter broadcasts the mask to the input only; "
    "torch broadcasts both: `ops.broadcast_to` them to one shape first",
    "histogram": "MindSpore has no histogram; count with `ops.tensor_scatter_add`",
    "mode": "MindSpore has no Tensor.mode",
    "as_strided": "MindSpore has no strided views; gather the elements with `ops.gather`",
    "narrow_copy": "MindSpore has no narrow_copy; `ops.narrow(x, dim, start, length)`",
    "aminmax": "MindSpore's aminmax takes `axis=`; call `amin` and `amax`",
    "cummax": "MindSpore's cummax returns a plain tuple of int32 indices",
    "cummin": "MindSpore's cummin returns a plain tuple of int32 indices",
    "equal": "MindSpore's Tensor.equal compares element by element; torch's gives one bool: "
    "`bool(ops.equal(a, b).all())` for tensors of one shape",
    "allclose": "MindSpore's Tensor.allclose gives a tensor; torch's gives one bool",
    "select": "MindSpore's select is a `where`; index the tensor: `x[(slice(None),) * dim + (i,)]`",
    "take_along_dim": "use `ops.gather_elements(x, dim, indices)` on broadcast inputs",
    "unflatten": "reshape: `x.reshape(x.shape[:d] + sizes + x.shape[d + 1:])`",
    "signbit": "MindSpore's signbit misses the sign of -0.0: "
    "`ops.signbit(x) | ((x == 0) & (1 / x < 0))`",
    "unique": "MindSpore's Tensor.unique has no CPU kernel (UniqueN)",
    "log_softmax": "MindSpore's log_softmax kernel rounds a few ulps away from torch's on "
    "CPU; subtract the max and the log of the summed exponentials",
    "apply_": "MindSpore has no apply_; map the function over `x.asnumpy()` and assign the "
    "result back",
    "cauchy_": "MindSpore has no cauchy_; draw uniform numbers and apply the inverse CDF",
    "log_normal_": "MindSpore has no log_normal_; `ops.exp` of normal draws",
    "geometric_": "MindSpore has no geometric_; the inverse CDF of uniform draws",
    "bernoulli_": "MindSpore's bernoulli_ runs on Ascend only; "
    "`ops.assign(x, (ops.rand_like(x) < p).astype(x.dtype))`",
    "new_full": "MindSpore's new_full runs on Ascend only; `ops.full(size, value, dtype=x.dtype)`",
    "fill_diagonal_": "MindSpore's fill_diagonal fails on CPU; `ops.where` with a diagonal mask",
    "scatter_reduce": "MindSpore has no scatter_reduce; `ops.tensor_scatter_add` (or _max, "
    "_min) on the full coordinates of `index`",
    "kthvalue": "MindSpore 2.10's Tensor.kthvalue fails on CPU; `ops.sort` along dim and "
    "take the k-th",
    "topk": "MindSpore's topk returns a plain tuple with int32 indices; torch's has "
    "`.values`/`.indices` and int64 indices",
    "polygamma": "MindSpore's polygamma takes n as a tensor: `ops.polygamma(mindspore.tensor(n), x)`",
    "split_with_sizes": "MindSpore has no split_with_sizes; `ops.split(x, sizes, axis=dim)`",
    "index_fill": "MindSpore's index_fill needs int32 indices: "
    "`x.index_fill(dim, index.astype(mindspore.int32), value)`",
    "diag": "MindSpore's Tensor.diag takes no diagonal; `ops.diagflat(x, k)` for a vector, "
    "`ops.diagonal(x, k)` for a matrix",
    "svd": "MindSpore's svd returns (S, U, V) and takes `full_matrices`; torch's gives (U, S, V) "
    "and takes `some`",
    "lu": "MindSpore has no Tensor.lu; `ops.lu_factor`",
    "ormqr": "MindSpore's Ormqr has no CPU kernel; build Q with `ops.orgqr` and multiply",
    "geqrf": "MindSpore's geqrf has no CPU kernel",
    "pinverse": "MindSpore has no Tensor.pinverse; `ops.pinv`",
    "cholesky_solve": "MindSpore's cholesky_solve takes the factor's upper flag by another name",
    "corrcoef": "MindSpore has no corrcoef; divide `ops.cov(x)` by the outer product of the "
    "standard deviations",
    "frexp": "MindSpore has no frexp; `e = floor(log2(|x|)) + 1`, `m = x / 2**e`",
    "dim_order": "MindSpore has no dim_order; its tensors are contiguous: `tuple(range(x.ndim))`",
    "resolve_conj": "MindSpore has no lazy conjugation; x is already resolved",
    "resolve_neg": "MindSpore has no lazy negation; x is already resolved",
    "stft": "MindSpore has no Tensor.stft; `ops.stft(x, n_fft, ..., pad_mode='REFLECT')`",
    "istft": "MindSpore has no istft; inverse FFT of each frame, windowed, overlap-added and "
    "divided by the summed squared window",
    "diff": "MindSpore's diff takes n=1 only; apply `ops.diff` n times",
    "narrow": "MindSpore's narrow takes an int start; `ops.narrow(x, dim, int(start), length)`",
}

TABLE = tuple(
    report("torch.Tensor." + name, note, kind="method") for name, note in _NOTES.items()
)
