"""Primitives that move values around: reshapes, transposes, broadcasting, joins and indexing."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np

from .core_engine import Tensor, apply, apply_unary, defprim, raw
from .core_ops import _axis_arg, _broadcast_fwd, _norm_axis, _shape, _sum_to_fwd

ndarray = np.ndarray


# ---------------------------------------------------------------------------------- shapes
def _reshape_fwd(x: ndarray, shape: tuple) -> ndarray:
    return x.reshape(shape)


def _back_to_shape(B, g, ans, x, *_, **__):
    return B.reshape(g, _shape(x))


P_reshape = defprim("reshape", _reshape_fwd, _back_to_shape, saves=False)
P_transpose = defprim(
    "transpose",
    lambda x, axes=None: x.transpose(axes),
    lambda B, g, ans, x, axes=None: B.transpose(
        g,
        None
        if axes is None
        else tuple(np.argsort([a % len(_shape(x)) for a in axes]).tolist()),
    ),
    saves=False,
)


def _squeeze_fwd(x: ndarray, axis: Any = None) -> ndarray:
    if axis is None:
        return x.squeeze()
    axes = tuple(a for a in _norm_axis(axis, x.ndim) if x.shape[a] == 1)
    return x.squeeze(axes) if axes else x


def _unsqueeze_fwd(x: ndarray, axis: int) -> ndarray:
    nd = x.ndim + 1
    axis = axis % nd
    shape = x.shape[:axis] + (1,) + x.shape[axis:]
    return x.reshape(shape)


P_squeeze = defprim("squeeze", _squeeze_fwd, _back_to_shape, saves=False)
P_unsqueeze = defprim("unsqueeze", _unsqueeze_fwd, _back_to_shape, saves=False)
P_sum_to = defprim(
    "sum_to",
    _sum_to_fwd,
    lambda B, g, ans, x, shape: B.broadcast_to(g, _shape(x)),
    saves=False,
)
P_broadcast_to = defprim(
    "broadcast_to",
    _broadcast_fwd,
    lambda B, g, ans, x, shape: B.sum_to(g, _shape(x)),
    saves=False,
)


def _concat_fwd(*xs: ndarray, axis: int = 0) -> ndarray:
    return np.concatenate(xs, axis=axis)


def _concat_vjp(i, B, g, ans, *xs, axis=0):
    nd = len(_shape(ans))
    ax = axis % nd
    start = builtins.sum(_shape(x)[ax] for x in xs[:i])
    index = (slice(None),) * ax + (slice(start, start + _shape(xs[i])[ax]),)
    return B.getitem(g, index)


P_concat = defprim("concat", _concat_fwd, argnum_vjp=_concat_vjp, saves=False)


def _stack_fwd(*xs: ndarray, axis: int = 0) -> ndarray:
    return np.stack(xs, axis=axis)


def _stack_vjp(i, B, g, ans, *xs, axis=0):
    ax = axis % len(_shape(ans))
    return B.getitem(g, (slice(None),) * ax + (i,))


P_stack = defprim("stack", _stack_fwd, argnum_vjp=_stack_vjp, saves=False)


def _getitem_fwd(x: ndarray, index: Any) -> ndarray:
    out = x[index]
    return out


def _is_basic(index: Any) -> bool:
    items = index if isinstance(index, tuple) else (index,)
    return all(
        isinstance(i, (int, np.integer, slice)) or i is None or i is Ellipsis
        for i in items
    )


def _index_add_fwd(g: ndarray, shape: tuple, index: Any) -> ndarray:
    out = np.zeros(shape, g.dtype)
    if _is_basic(index):
        out[index] = g
    else:
        np.add.at(out, index, g)
    return out


P_getitem = defprim(
    "getitem",
    _getitem_fwd,
    lambda B, g, ans, x, index: B.index_add(g, _shape(x), index),
)
P_index_add = defprim(
    "index_add",
    _index_add_fwd,
    lambda B, g, ans, gx, shape, index: B.getitem(g, index),
    saves=False,
)


def _gather_index(shape: tuple, axis: int, index: ndarray) -> tuple:
    grids = list(np.ogrid[tuple(slice(0, n) for n in index.shape)])
    grids[axis] = index
    return tuple(grids)


def _gather_fwd(x: ndarray, axis: int, index: ndarray) -> ndarray:
    axis = axis % x.ndim
    return x[_gather_index(x.shape, axis, index)]


def _scatter_add_fwd(g: ndarray, shape: tuple, axis: int, index: ndarray) -> ndarray:
    out = np.zeros(shape, g.dtype)
    np.add.at(out, _gather_index(shape, axis % len(shape), index), g)
    return out


P_gather = defprim(
    "gather",
    _gather_fwd,
    lambda B, g, ans, x, axis, index: B.scatter_add(g, _shape(x), axis, index),
)
P_scatter_add = defprim(
    "scatter_add",
    _scatter_add_fwd,
    lambda B, g, ans, gx, shape, axis, index: B.gather(g, axis, index),
    saves=False,
)


def _pad_fwd(x: ndarray, pads: tuple, value: float = 0.0) -> ndarray:
    return np.pad(x, pads, mode="constant", constant_values=value)


def _pad_vjp(B, g, ans, x, pads, value=0.0):
    return B.getitem(g, tuple(slice(lo, lo + n) for (lo, _), n in zip(pads, _shape(x))))


P_pad = defprim("pad", _pad_fwd, _pad_vjp, saves=False)


def reshape(x: Any, shape: Any) -> Tensor:
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    return apply_unary(P_reshape, x, {"shape": tuple(shape)})


def transpose(x: Any, axes: Any = None) -> Tensor:
    return apply_unary(P_transpose, x, {"axes": None if axes is None else tuple(axes)})


def swapaxes(x: Any, a: int, b: int) -> Tensor:
    axes = list(range(x.ndim))
    axes[a], axes[b] = axes[b], axes[a]
    return transpose(x, axes)


def squeeze(x: Any, axis: Any = None) -> Tensor:
    return apply_unary(P_squeeze, x, {"axis": _axis_arg(axis)})


def unsqueeze(x: Any, axis: int) -> Tensor:
    return apply_unary(P_unsqueeze, x, {"axis": axis})


def flatten(x: Any, start: int = 0, end: int = -1) -> Tensor:
    shape = x.shape
    nd = len(shape)
    if nd == 0:
        return reshape(x, (1,))
    start, end = start % nd, end % nd
    new = (
        shape[:start]
        + (int(np.prod(shape[start : end + 1], dtype=np.int64)),)
        + shape[end + 1 :]
    )
    return reshape(x, new)


def sum_to(x: Any, shape: tuple) -> Tensor:
    shape = tuple(shape)
    if isinstance(x, Tensor) and x._data.shape == shape:
        return x
    return apply_unary(P_sum_to, x, {"shape": shape})


def broadcast_to(x: Any, shape: tuple) -> Tensor:
    shape = tuple(shape)
    if isinstance(x, Tensor) and x._data.shape == shape:
        return x
    return apply_unary(P_broadcast_to, x, {"shape": shape})


def concat(seq: Sequence[Any], axis: int = 0) -> Tensor:
    return apply(P_concat, tuple(seq), {"axis": axis})


def stack(seq: Sequence[Any], axis: int = 0) -> Tensor:
    return apply(P_stack, tuple(seq), {"axis": axis})


def split(x: Tensor, sizes_or_sections: Any, axis: int = 0) -> list[Tensor]:
    """torch.split semantics: an int is the size of each chunk; a list gives the sizes."""
    n = x.shape[axis]
    if isinstance(sizes_or_sections, (int, np.integer)):
        size = int(sizes_or_sections)
        sizes = [size] * (n // size) + ([n % size] if n % size else [])
    else:
        sizes = list(sizes_or_sections)
    ax = axis % x.ndim
    out, start = [], 0
    for s in sizes:
        out.append(getitem(x, (slice(None),) * ax + (slice(start, start + s),)))
        start += s
    return out


def chunk(x: Tensor, chunks: int, axis: int = 0) -> list[Tensor]:
    n = x.shape[axis]
    size = -(-n // chunks)
    return split(x, size, axis)


def _index_arg(index: Any) -> Any:
    if isinstance(index, Tensor):
        return index._data
    if isinstance(index, tuple):
        return tuple(
            i._data
            if isinstance(i, Tensor)
            else (np.asarray(i) if isinstance(i, list) else i)
            for i in index
        )
    if isinstance(index, list):
        return np.asarray(index)
    return index


def getitem(x: Any, index: Any) -> Tensor:
    return apply_unary(P_getitem, x, {"index": _index_arg(index)})


def index_add(g: Any, shape: tuple, index: Any) -> Tensor:
    return apply_unary(
        P_index_add, g, {"shape": tuple(shape), "index": _index_arg(index)}
    )


def gather(x: Any, axis: int, index: Any) -> Tensor:
    return apply_unary(P_gather, x, {"axis": axis, "index": np.asarray(raw(index))})


def scatter_add(g: Any, shape: tuple, axis: int, index: Any) -> Tensor:
    return apply_unary(
        P_scatter_add,
        g,
        {"shape": tuple(shape), "axis": axis, "index": np.asarray(raw(index))},
    )


def pad(x: Any, pads: Sequence[tuple], value: float = 0.0) -> Tensor:
    """NumPy-style pads: one (before, after) pair per axis."""
    return apply_unary(
        P_pad, x, {"pads": tuple(tuple(p) for p in pads), "value": value}
    )
