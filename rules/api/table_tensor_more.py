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
    "cauchy_": "MindSpore has no cauchy_; draw uniform numbers and apply the inverse CDF",
    "log_normal_": "MindSpore has no log_normal_; `ops.exp` of normal draws",
    "geometric_": "MindSpore has no geometric_; the inverse CDF of uniform draws",
}

TABLE = tuple(
    report("torch.Tensor." + name, note, kind="method") for name, note in _NOTES.items()
)
