"""torch.autograd.Function (custom forward/backward) and tensor hooks on the shared engine."""

from __future__ import annotations

from typing import Any

from ... import core as C
from .._tensor import Tensor, wrap

# Set once any tensor registers a hook; until then backward sweeps skip the hook check.
HOOKS_USED = [False]


class RemovableHandle:
    def __init__(self, hooks: list, hook: Any) -> None:
        self.hooks, self.hook = hooks, hook

    def remove(self) -> None:
        if self.hook in self.hooks:
            self.hooks.remove(self.hook)


def register_hook(tensor: Tensor, hook: Any) -> RemovableHandle:
    if not tensor.requires_grad:
        raise RuntimeError(
            "cannot register a hook on a tensor that doesn't require gradient"
        )
    hooks = tensor.__dict__.setdefault("_hooks", [])
    hooks.append(hook)
    HOOKS_USED[0] = True
    return RemovableHandle(hooks, hook)


def run_hooks(t: Any, g: Any) -> Any:
    """The engine's per-tensor hook: hooks see the grad as a tensor and may replace it."""
    hooks = t.__dict__.get("_hooks") if hasattr(t, "__dict__") else None
    if not hooks:
        return g
    graph_mode = isinstance(g, C.Tensor)
    for hook in list(hooks):
        result = hook(g if graph_mode else wrap(g))
        if result is not None:
            g = result if graph_mode else result._data
    return g


class FunctionCtx:
    def __init__(self) -> None:
        self.to_save: tuple = ()
        self.needs_input_grad: tuple = ()
        self.materialize_grads = True

    def save_for_backward(self, *tensors: Any) -> None:
        self.to_save = tensors

    @property
    def saved_tensors(self) -> tuple:
        return self.to_save

    def mark_dirty(self, *args: Any) -> None:
        return None

    def mark_non_differentiable(self, *args: Any) -> None:
        return None

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = value


class Function:
    """Subclass with static ``forward(ctx, *args)`` (or ``forward(*args)`` plus ``setup_context``)
    and ``backward(ctx, *grads)``; call ``YourFunction.apply(*args)``. One tensor output."""

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom autograd.Function"
        )

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> None:
        return None

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(
            isinstance(a, C.Tensor) and a.requires_grad for a in args
        )
        separate_setup = cls.setup_context is not Function.setup_context
        with C.grad_mode(False):
            if separate_setup:
                out = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, out)
            else:
                out = cls.forward(ctx, *args, **kwargs)
        if not (C.is_grad_enabled() and any(ctx.needs_input_grad)):
            return out
        if not isinstance(out, C.Tensor):
            raise NotImplementedError(
                "shims: torch.autograd.Function with several outputs is not implemented"
            )
        return _record(cls, ctx, args, out)


def _record(cls: type, ctx: FunctionCtx, args: tuple, out: Tensor) -> Tensor:
    """Attach a one-off primitive whose VJP calls the user's backward once per sweep."""
    cache: dict = {}

    def vjp(i: int, B: Any, g: Any, ans: Any, *_: Any) -> Any:
        key = id(g)
        if key not in cache:
            cache.clear()
            graph_mode = isinstance(g, C.Tensor)
            grads = cls.backward(ctx, g if graph_mode else wrap(g))
            grads = grads if isinstance(grads, tuple) else (grads,)
            cache[key] = (
                g,
                [None if r is None else (r if graph_mode else r._data) for r in grads],
            )
        grads = cache[key][1]
        return grads[i] if i < len(grads) else None

    prim = C.Primitive(f"{cls.__name__}Backward", None, (), vjp, True, True)
    arrays = tuple(a._data if isinstance(a, C.Tensor) else a for a in args)
    result = wrap(out._data)
    result.requires_grad = True
    result._ctx = C.Node(prim, tuple(args), arrays, {})
    result._ctx.name = f"{cls.__name__}Backward"
    return result
