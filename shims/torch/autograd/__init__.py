"""torch.autograd: backward, grad, Variable, grad-mode managers."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import core as C
from .. import _tensor as _tensor_module
from .._grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled  # noqa: F401
from .._tensor import Tensor, wrap
from .function import HOOKS_USED, Function, FunctionCtx, run_hooks  # noqa: F401

__all__ = [
    "Function",
    "Variable",
    "backward",
    "enable_grad",
    "grad",
    "no_grad",
    "set_grad_enabled",
]

_new = object.__new__
NO_GRAD_FN = "element {} of tensors does not require grad and does not have a grad_fn"


def _as_list(x: Any) -> list:
    if x is None:
        return []
    if isinstance(x, C.Tensor):
        return [x]
    return list(x)


def _seeds(outputs: list, grads: list, create_graph: bool) -> list:
    seeds = []
    for i, out in enumerate(outputs):
        g = grads[i] if i < len(grads) else None
        if not out.requires_grad:
            raise RuntimeError(NO_GRAD_FN.format(i))
        if g is None:
            if out._data.size != 1:
                raise RuntimeError(
                    "grad can be implicitly created only for scalar outputs"
                )
            g_arr = np.array(1, out._data.dtype).reshape(out._data.shape)
            seeds.append(wrap(g_arr) if create_graph else g_arr)
        elif isinstance(g, C.Tensor):
            if tuple(g.shape) != tuple(out.shape):
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] has a shape "
                    f"of {out.shape}."
                )
            seeds.append(g if create_graph else g._data)
        else:
            arr = np.asarray(g, out._data.dtype)
            seeds.append(wrap(arr) if create_graph else arr)
    return seeds


def backward(
    tensors: Any,
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    grad_variables: Any = None,
    inputs: Any = None,
) -> None:
    outputs = _as_list(tensors)
    grads = _as_list(grad_tensors if grad_tensors is not None else grad_variables)
    if retain_graph is None:
        retain_graph = create_graph
    seeds = _seeds(outputs, grads, create_graph)
    if inputs is None:
        wanted = targets = None
        nonleaf = _RETAINS[0]
        # None: leaves only (until some tensor retains its grad, no capture test is needed).
        capture = _capture if nonleaf else None
    else:
        targets = _as_list(inputs)
        wanted = {id(t) for t in targets}

        def capture(t: Any) -> bool:
            return id(t) in wanted

        nonleaf = True
    hook = run_hooks if HOOKS_USED[0] else None
    if hook is None and targets is None and not create_graph and len(outputs) == 1:
        captured = C.backprop_raw(outputs[0], seeds[0], retain_graph, capture, nonleaf)
    else:
        captured = C.backprop(
            outputs, seeds, create_graph, retain_graph, capture, targets, nonleaf, hook
        )
    _accumulate_all(captured, create_graph, {id(s) for s in seeds}, wanted is None)


_ONES: dict = {}


def backward_scalar(t: Tensor, retain_graph: bool | None) -> None:
    """``t.backward()`` with no arguments: ``backward([t])`` without the general argument handling."""
    if HOOKS_USED[0] or not t.requires_grad:
        backward([t], None, retain_graph)
        return
    data = t._data
    if data.size != 1:
        raise RuntimeError("grad can be implicitly created only for scalar outputs")
    if data.ndim:
        seed = np.ones(data.shape, data.dtype)
    else:
        one = _ONES.get(data.dtype)
        if one is None:
            one = _ONES[data.dtype] = np.ones((), data.dtype)
        seed = one.copy()
    nonleaf = _RETAINS[0]
    captured = C.backprop_raw(
        t, seed, bool(retain_graph), _capture if nonleaf else None, nonleaf
    )
    _accumulate_all(captured, False, {id(seed)}, True)


# Becomes true once any tensor calls retain_grad(); until then only leaves collect grads.
_RETAINS = [False]


def _capture(t: Any) -> bool:
    return t._ctx is None or t._retains_grad


def _accumulate_all(
    captured: list, create_graph: bool, seen: set, only_retained: bool
) -> None:
    """Add each captured grad to its tensor's ``.grad``; with ``only_retained``, non-leaves that
    did not ask to retain their grad are passed over. ``seen``: ids of arrays that must be copied."""
    for t, g in captured:
        if only_retained and t._ctx is not None and not t._retains_grad:
            continue
        if create_graph:
            t.grad = g if t.grad is None else C.add(t.grad, g)
            continue
        data = t._data
        if g.__class__ is not np.ndarray:
            g = np.asarray(g)
        if g.dtype is not data.dtype:
            g = g.astype(data.dtype)
        existing = t.grad
        if existing is None:
            # Fresh arrays are kept; views, shared or broadcast arrays are copied (grads are mutable).
            shape = data.shape
            if (
                g.base is not None
                or id(g) in seen
                or g.shape != shape
                or not g.flags.writeable
            ):
                g = (
                    g.copy()
                    if g.shape == shape
                    else np.array(np.broadcast_to(g, shape))
                )
            seen.add(id(g))
            fresh = _new(Tensor)
            fresh._data = g
            fresh.requires_grad = False
            fresh._ctx = None
            t.grad = fresh
        elif existing.requires_grad:
            t.grad = wrap(existing._data + g)
        else:
            existing._data += g


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple:
    outs = _as_list(outputs)
    ins = _as_list(inputs)
    for t in ins:
        if not t.requires_grad:
            raise RuntimeError(
                "One of the differentiated Tensors does not require grad"
            )
    seeds = _seeds(outs, _as_list(grad_outputs), create_graph)
    if retain_graph is None:
        retain_graph = create_graph
    wanted = {id(t) for t in ins}
    found = {
        id(t): g
        for t, g in C.backprop(
            outs,
            seeds,
            create_graph,
            retain_graph,
            lambda t: id(t) in wanted,
            ins,
            True,
            run_hooks if HOOKS_USED[0] else None,
        )
    }
    result = []
    for t in ins:
        g = found.get(id(t))
        if g is None:
            if materialize_grads:
                result.append(wrap(np.zeros_like(t._data)))
                continue
            if not allow_unused:
                raise RuntimeError(
                    "One of the differentiated Tensors appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior."
                )
            result.append(None)
        elif isinstance(g, C.Tensor):
            result.append(g)
        else:
            g = np.asarray(g)
            result.append(
                wrap(g.copy() if g.base is not None or not g.flags.writeable else g)
            )
    return tuple(result)


_tensor_module.AUTOGRAD_BACKWARD[0] = backward
_tensor_module.AUTOGRAD_BACKWARD[1] = backward_scalar


def Variable(data: Any, requires_grad: bool = False, volatile: bool = False) -> Tensor:
    """Deprecated wrapper: returns the tensor itself (with requires_grad set when asked)."""
    if requires_grad:
        data.requires_grad_(True)
    return data


def __getattr__(name: str) -> Any:
    raise NotImplementedError(f"shims: torch.autograd.{name} is not implemented")
