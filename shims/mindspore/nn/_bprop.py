"""Cells with a hand-written ``bprop``: the forward runs unrecorded and one engine node stands for
the whole cell, its VJP calling ``bprop(*inputs, out, dout)``."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import core
from .._missing import missing
from .._tensor import Tensor


def has_bprop(cell: Any) -> bool:
    return callable(getattr(type(cell), "bprop", None))


def call_with_bprop(cell: Any, args: tuple, kwargs: dict) -> Any:
    with core.grad_mode(False):
        out = cell.construct(*args, **kwargs)
    if not any(isinstance(a, core.Tensor) and a.requires_grad for a in args):
        return out
    if kwargs:
        raise missing("mindspore.nn.Cell.bprop with keyword arguments")
    if not isinstance(out, core.Tensor):
        raise missing("mindspore.nn.Cell.bprop for a cell with several outputs")
    cache: dict[int, tuple] = {}

    def as_tensor(value: Any) -> Any:
        return (
            core.wrap(Tensor, np.asarray(value))
            if isinstance(value, np.ndarray)
            else value
        )

    def vjp(i: int, B: Any, g: Any, ans: Any, *inputs: Any) -> Any:
        if id(g) not in cache:
            cache.clear()
            grads = cell.bprop(
                *(as_tensor(x) for x in inputs), as_tensor(ans), as_tensor(g)
            )
            cache[id(g)] = (
                tuple(grads) if isinstance(grads, (tuple, list)) else (grads,)
            )
        grads = cache[id(g)]
        gi = grads[i] if i < len(grads) else None
        if gi is None or not isinstance(gi, core.Tensor):
            return None
        return gi if B is core.GRAPH else gi._data

    prim = core.Primitive(
        f"{type(cell).__name__}.bprop", lambda *arrays: out._data, (), vjp, True, True
    )
    return core.apply(prim, args)
