"""Functional differentiation: ``grad``, ``value_and_grad``, ``vjp``, ``jvp``, ``GradOperation``.

MindSpore differentiates a function, not a tape. Each call runs ``fn`` on fresh leaves (the inputs at
``grad_position``) with the trainable Parameters recorded, seeds every output with ones (so the
gradients of all outputs are summed unless ``has_aux``) and returns the gradients as values. Inside
another differentiation the graph is kept and the gradients are recorded, so grads nest.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import core
from ._tensor import Tensor

_depth = 0


def differentiating() -> bool:
    """True while a function is being run for a gradient (Cells record their graph only then)."""
    return _depth > 0


def _leaves(value: Any) -> list:
    if isinstance(value, core.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _leaves(v)]
    return []


def _detach(value: Any) -> Any:
    if isinstance(value, core.Tensor):
        return core.wrap(value._out_cls, value._data)
    if isinstance(value, tuple):
        return tuple(_detach(v) for v in value)
    if isinstance(value, list):
        return [_detach(v) for v in value]
    return value


def _as_input(value: Any, nested: bool) -> core.Tensor:
    """A fresh differentiable input; nested, it stays connected to the outer graph."""
    if not isinstance(value, core.Tensor):
        value = Tensor(value)
    if nested and value.requires_grad:
        return core.copy(value)
    return core.wrap(Tensor, value._data, requires_grad=True)


def _run(
    fn: Callable, args: Sequence[Any], kwargs: dict, positions: tuple[int, ...]
) -> tuple[Any, list, bool]:
    global _depth
    nested = _depth > 0
    args = list(args)
    for i in positions:
        if i >= len(args) or i < -len(args):
            raise RuntimeError(f"Position index {i} is exceed input size.")
    inputs = []
    for i, value in enumerate(args):
        if i in positions or (i - len(args)) in positions:
            args[i] = _as_input(value, nested)
        elif not nested and isinstance(value, core.Tensor) and value._ctx is not None:
            args[i] = core.wrap(value._out_cls, value._data)
    inputs = [args[i] for i in positions]
    _depth += 1
    try:
        with core.grad_mode(True):
            out = fn(*args, **kwargs)
    finally:
        _depth -= 1
    return out, inputs, nested


class _HookHandle:
    def __init__(self, hooks: list, hook: Callable) -> None:
        self.hooks, self.hook = hooks, hook

    def remove(self) -> None:
        if self.hook in self.hooks:
            self.hooks.remove(self.hook)


_HOOKED = [False]


def register_hook(tensor: core.Tensor, hook: Callable) -> _HookHandle:
    if not callable(hook):
        raise TypeError(
            f"For 'register_hook', the type of 'hook' should be function, but got {type(hook)}."
        )
    hooks = tensor.__dict__.setdefault("_ms_hooks", [])
    hooks.append(hook)
    _HOOKED[0] = True
    return _HookHandle(hooks, hook)


def _run_hooks(t: core.Tensor, g: Any) -> Any:
    hooks = t.__dict__.get("_ms_hooks")
    if not hooks:
        return g
    graph = isinstance(g, core.Tensor)
    for hook in list(hooks):
        result = hook(g if graph else core.wrap(Tensor, g))
        if result is not None:
            if graph:
                g = result
            else:
                g = np.asarray(
                    result._data if isinstance(result, core.Tensor) else result, g.dtype
                )
    return g


def _hooked_grad(targets: list, seeds: list, wrt: list, nested: bool) -> list:
    """``core.grad`` with the registered tensor hooks applied on the way back."""
    if nested:
        seeds = [core.wrap(t._out_cls, s) for t, s in zip(targets, seeds)]
    wanted = {id(t) for t in wrt}
    swept = core.backprop(
        targets, seeds, nested, nested, lambda t: id(t) in wanted, wrt, hook=_run_hooks
    )
    found = {id(t): g for t, g in swept}
    out = []
    for t in wrt:
        g = found.get(id(t))
        if g is None or isinstance(g, core.Tensor):
            out.append(g)
        else:
            out.append(core.wrap(t._out_cls, np.array(g)))
    return out


def _gradients(targets: list, seeds: list, wrt: list, nested: bool) -> list:
    if _HOOKED[0]:
        grads = _hooked_grad(targets, seeds, wrt, nested)
    else:
        grads = core.grad(
            targets,
            wrt,
            grad_outputs=seeds,
            create_graph=nested,
            allow_unused=True,
            retain_graph=nested,
        )
    out = []
    for t, g in zip(wrt, grads):
        if g is None:
            g = core.wrap(Tensor, np.zeros_like(np.asarray(t._data)))
        elif g._data.dtype != t._data.dtype:
            g = core.cast(g, t._data.dtype)
        out.append(g)
    return out


def _seed_for(target: core.Tensor, sens: Any = None) -> np.ndarray:
    if sens is None:
        return np.ones(target._data.shape, target._data.dtype)
    return np.asarray(
        sens._data if isinstance(sens, core.Tensor) else sens, target._data.dtype
    )


def _weights_list(weights: Any) -> tuple[list, bool]:
    """(parameters, single): a lone Parameter gives a lone gradient, a sequence gives a tuple."""
    if weights is None:
        return [], False
    if isinstance(weights, core.Tensor):
        return [weights], True
    return list(weights), False


def _positions(grad_position: Any) -> tuple[tuple[int, ...], bool]:
    if grad_position is None:
        return (), False
    if isinstance(grad_position, int):
        return (grad_position,), True
    positions = tuple(grad_position)
    return positions, len(positions) == 1


def _differentiate(
    fn: Callable,
    args: tuple,
    kwargs: dict,
    positions: tuple[int, ...],
    weights: list,
    has_aux: bool,
    sens_param: bool,
    fill: Any = None,
) -> tuple[Any, list, list, bool]:
    """Run ``fn`` and differentiate; ``fill`` (a number) seeds every output with that value."""
    sens = None
    if sens_param:
        args, sens = args[:-1], args[-1]
    out, inputs, nested = _run(fn, args, kwargs, positions)
    if has_aux:
        if not isinstance(out, (tuple, list)) or len(out) < 2:
            raise ValueError(
                "When has_aux is True, origin fn requires more than one outputs."
            )
        targets = _leaves(out[0])
        sens_leaves = _leaves(sens) if sens is not None else [None] * len(targets)
    else:
        targets = _leaves(out)
        sens_leaves = _leaves(sens) if sens is not None else [None] * len(targets)
    seeds = [_seed_for(t, s) for t, s in zip(targets, sens_leaves)]
    if fill is not None:
        seeds = [np.full_like(seed, fill) for seed in seeds]
    grads = _gradients(targets, seeds, inputs + weights, nested)
    return out, grads[: len(inputs)], grads[len(inputs) :], nested


def _assemble(
    input_grads: list,
    weight_grads: list,
    positions: tuple[int, ...],
    single_position: bool,
    weights: Any,
    weight_list: list,
    single_weight: bool,
    return_ids: bool,
) -> Any:
    if return_ids:
        input_grads = [(p, g) for p, g in zip(positions, input_grads)]
        weight_grads = [(w.name, g) for w, g in zip(weight_list, weight_grads)]
    pos_part = input_grads[0] if single_position else tuple(input_grads)
    if weights is None:
        return pos_part
    weight_part = weight_grads[0] if single_weight else tuple(weight_grads)
    if not positions:
        return weight_part
    return (pos_part, weight_part)


def _check(grad_position: Any, weights: Any) -> None:
    if grad_position is None and weights is None:
        raise ValueError(
            "`grad_position` and `weight` can not be None at the same time."
        )


def grad(
    fn: Callable,
    grad_position: Any = 0,
    weights: Any = None,
    has_aux: bool = False,
    return_ids: bool = False,
    sens_param: bool = False,
) -> Callable:
    """A function returning the gradients of ``fn`` (see the table in the migration guide)."""
    _check(grad_position, weights)
    positions, single_position = _positions(grad_position)
    weight_list, single_weight = _weights_list(weights)

    def grad_fn(*args: Any, **kwargs: Any) -> Any:
        out, ig, wg, nested = _differentiate(
            fn, args, kwargs, positions, weight_list, has_aux, sens_param
        )
        result = _assemble(
            ig,
            wg,
            positions,
            single_position,
            weights,
            weight_list,
            single_weight,
            return_ids,
        )
        if has_aux:
            aux = tuple(out[1:])
            return result, (aux if nested else _detach(aux))
        return result

    return grad_fn


def value_and_grad(
    fn: Callable,
    grad_position: Any = 0,
    weights: Any = None,
    has_aux: bool = False,
    return_ids: bool = False,
    sens_param: bool = False,
) -> Callable:
    """A function returning ``(fn's outputs, gradients)``."""
    _check(grad_position, weights)
    positions, single_position = _positions(grad_position)
    weight_list, single_weight = _weights_list(weights)

    def value_and_grad_fn(*args: Any, **kwargs: Any) -> Any:
        out, ig, wg, nested = _differentiate(
            fn, args, kwargs, positions, weight_list, has_aux, sens_param
        )
        result = _assemble(
            ig,
            wg,
            positions,
            single_position,
            weights,
            weight_list,
            single_weight,
            return_ids,
        )
        value = out if nested else _detach(out)
        if isinstance(value, list):
            value = tuple(value)
        return value, result

    return value_and_grad_fn


class GradOperation:
    """``GradOperation(get_all, get_by_list, sens_param)(fn[, weights])(*inputs[, sens])``."""

    def __init__(
        self, get_all: bool = False, get_by_list: bool = False, sens_param: bool = False
    ) -> None:
        self.get_all = get_all
        self.get_by_list = get_by_list
        self.sens_param = sens_param

    def __call__(self, fn: Callable, weights: Any = None) -> Callable:
        weight_list = list(weights) if self.get_by_list and weights is not None else []
        if self.get_by_list and isinstance(weights, core.Tensor):
            weight_list = [weights]

        def grad_fn(*args: Any, **kwargs: Any) -> Any:
            n_inputs = len(args) - (1 if self.sens_param else 0)
            positions = (
                tuple(range(n_inputs))
                if self.get_all
                else ((0,) if not self.get_by_list else ())
            )
            _, ig, wg, _ = _differentiate(
                fn, args, kwargs, positions, weight_list, False, self.sens_param
            )
            if self.get_all and self.get_by_list:
                return (tuple(ig), tuple(wg))
            if self.get_by_list:
                return tuple(wg)
            if self.get_all:
                return tuple(ig)
            return ig[0]

        return grad_fn


def vjp(
    fn: Callable, *inputs: Any, weights: Any = None, has_aux: bool = False
) -> tuple:
    """``(outputs, vjp_fn)``; ``vjp_fn(v)`` gives a tuple with one gradient per input, and with
    ``weights`` the pair ``(input gradients, weight gradients)``."""
    positions = tuple(range(len(inputs)))
    weight_list, single_weight = _weights_list(weights)
    out, leaves, nested = _run(fn, inputs, {}, positions)
    if has_aux:
        if not isinstance(out, (tuple, list)) or len(out) < 2:
            raise ValueError(
                "When has_aux is True, origin fn requires more than one outputs."
            )
        value, aux = out[0], tuple(out[1:])
    else:
        value, aux = out, None
    targets = _leaves(value)

    def vjp_fn(*v: Any) -> tuple:
        cotangents = _leaves(
            v[0] if len(v) == 1 and isinstance(v[0], (tuple, list)) else v
        )
        seeds = [_seed_for(t, s) for t, s in zip(targets, cotangents)]
        wrt = leaves + weight_list
        grads = core.grad(
            targets,
            wrt,
            grad_outputs=seeds,
            create_graph=nested,
            allow_unused=True,
            retain_graph=True,
        )
        grads = [
            g
            if g is not None
            else core.wrap(Tensor, np.zeros_like(np.asarray(x._data)))
            for x, g in zip(wrt, grads)
        ]
        input_grads = tuple(grads[: len(leaves)])
        if weights is None:
            return input_grads
        weight_grads = grads[len(leaves) :]
        return input_grads, (weight_grads[0] if single_weight else tuple(weight_grads))

    shown = value if nested else _detach(value)
    if has_aux:
        return shown, vjp_fn, (aux if nested else _detach(aux))
    return shown, vjp_fn


def jvp(fn: Callable, inputs: Any, v: Any, has_aux: bool = False) -> tuple:
    """``(outputs, J @ v)`` by differentiating a vector-Jacobian product once more."""
    single = isinstance(inputs, core.Tensor)
    inputs = (inputs,) if single else tuple(inputs)
    tangents = (v,) if isinstance(v, core.Tensor) else tuple(v)
    positions = tuple(range(len(inputs)))
    out, leaves, nested = _run(fn, inputs, {}, positions)
    if has_aux:
        value, aux = out[0], tuple(out[1:])
    else:
        value, aux = out, None
    targets = _leaves(value)
    probes = [
        core.wrap(Tensor, np.zeros_like(np.asarray(t._data)), requires_grad=True)
        for t in targets
    ]
    with core.grad_mode(True):
        pulled = core.grad(
            targets,
            leaves,
            grad_outputs=probes,
            create_graph=True,
            allow_unused=True,
            retain_graph=True,
        )
        used = [(g, t) for g, t in zip(pulled, tangents) if g is not None]
        if used:
            pushed = core.grad(
                [g for g, _ in used],
                probes,
                grad_outputs=[np.asarray(t._data, g._data.dtype) for g, t in used],
                create_graph=nested,
                allow_unused=True,
                retain_graph=nested,
            )
        else:
            pushed = [None] * len(probes)
    results = [
        g if g is not None else core.wrap(Tensor, np.zeros_like(np.asarray(t._data)))
        for t, g in zip(targets, pushed)
    ]
    tangent_out = results[0] if isinstance(value, core.Tensor) else tuple(results)
    shown = value if nested else _detach(value)
    if has_aux:
        return shown, tangent_out, (aux if nested else _detach(aux))
    return shown, tangent_out


def stop_gradient(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return type(value)(stop_gradient(v) for v in value)
    if isinstance(value, core.Tensor):
        return core.wrap(value._out_cls, value._data)
    return value
