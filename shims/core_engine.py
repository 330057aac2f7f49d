"""Tensor node, primitive table, grad mode and reverse-mode backpropagation (see ``core`` docstring)."""

from __future__ import annotations

import heapq
import itertools
import sys
from collections.abc import Callable, Iterable, Sequence
from types import SimpleNamespace
from typing import Any, Self

import numpy as np

ndarray = np.ndarray
F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)
DEFAULT_FLOAT = F32
EMPTY: dict = {}

_grad_enabled = True


def set_default_float(dtype: Any) -> None:
    """The float dtype that integer inputs and Python floats turn into (torch.set_default_dtype)."""
    global DEFAULT_FLOAT
    DEFAULT_FLOAT = np.dtype(dtype)


def is_grad_enabled() -> bool:
    return _grad_enabled


def set_grad_enabled(flag: bool) -> bool:
    """Set grad mode; returns the previous mode."""
    global _grad_enabled
    previous = _grad_enabled
    _grad_enabled = bool(flag)
    return previous


class grad_mode:
    """Context manager that sets grad mode and restores the previous one on exit."""

    __slots__ = ("flag", "previous")

    def __init__(self, flag: bool) -> None:
        self.flag = flag
        self.previous = True

    def __enter__(self) -> Self:
        self.previous = set_grad_enabled(self.flag)
        return self

    def __exit__(self, *exc: object) -> None:
        set_grad_enabled(self.previous)


class Primitive:
    """One row of the primitive table: a NumPy forward and one VJP maker per positional argument.

    A VJP maker is ``vjp(B, g, ans, *args, **params)`` where ``B`` is a backend namespace (``RAW``:
    NumPy forwards on arrays, or ``GRAPH``: engine ops on tensors, used when ``create_graph``).
    ``argnum_vjp(i, B, g, ans, *args, **params)`` replaces the per-argument list for variadic ops.
    ``saves`` says whether the op keeps inputs for its backward (a freed graph then cannot be re-run).
    """

    __slots__ = (
        "argnum_vjp",
        "differentiable",
        "forward",
        "name",
        "owned_vjp",
        "saves",
        "vjps",
    )

    def __init__(self, name, forward, vjps, argnum_vjp, saves, differentiable):
        self.name = name
        self.forward = forward
        self.vjps = vjps
        self.argnum_vjp = argnum_vjp
        self.saves = saves
        self.differentiable = differentiable
        # Optional first-order VJP of a one-input primitive, ``owned_vjp(g, ans, *arrays, **params)``,
        # allowed to overwrite ``g``: the sweep uses it when it holds the only reference to ``g``.
        self.owned_vjp = None

    def __repr__(self) -> str:
        return f"<primitive {self.name}>"


PRIMITIVES: dict[str, Primitive] = {}


def defprim(
    name: str,
    forward: Callable,
    *vjps: Callable | None,
    argnum_vjp: Callable | None = None,
    saves: bool = True,
    differentiable: bool = True,
) -> Primitive:
    prim = Primitive(name, forward, vjps, argnum_vjp, saves, differentiable)
    PRIMITIVES[name] = prim
    return prim


class Node:
    """A recorded application: the primitive, its inputs (tensors and constants) and their arrays.

    ``seq`` grows with every recorded node, so a node's inputs always have smaller ``seq``: the
    reverse sweep visits nodes in decreasing ``seq``. ``name`` (None: the primitive's name) and
    ``aux`` are free for a facade."""

    __slots__ = (
        "__weakref__",
        "arrays",
        "aux",
        "freed",
        "inputs",
        "name",
        "params",
        "prim",
        "seq",
    )

    def __init__(self, prim, inputs, arrays, params):
        self.prim = prim
        self.inputs = inputs
        self.arrays = arrays
        self.params = params
        self.seq = next(_sequence)
        self.name = None
        self.freed = False
        self.aux = None


_sequence = itertools.count()


def _sole_count() -> int:
    probe = np.empty(0)
    return sys.getrefcount(probe)


# What sys.getrefcount reports for an array that only one local variable refers to (None where
# reference counts are not observable): the sweep then owns a gradient and may reuse its buffer.
_SOLE = _sole_count() if sys.implementation.name == "cpython" else None


class Tensor:
    """Engine tensor: ``_data`` (ndarray; also readable and settable as ``data``), ``requires_grad``
    and ``_ctx`` (the producing Node or None)."""

    __slots__ = ("_ctx", "_data", "requires_grad")

    def __init__(self, data: Any, requires_grad: bool = False) -> None:
        if isinstance(data, Tensor):
            data = data._data
        arr = np.asarray(data)
        if arr.dtype is F64 and not isinstance(data, ndarray):
            arr = arr.astype(DEFAULT_FLOAT)
        self._data = arr
        self.requires_grad = requires_grad
        self._ctx = None

    @property
    def data(self) -> ndarray:
        """The ndarray (the torch facade overrides this with torch's ``.data``; engine code uses ``_data``)."""
        return self._data

    @data.setter
    def data(self, value: ndarray) -> None:
        self._data = value

    @property
    def shape(self) -> tuple:
        return self._data.shape

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def dtype(self):
        return self._data.dtype

    def __len__(self) -> int:
        return len(self._data)

    __hash__ = object.__hash__

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "_out_cls" not in cls.__dict__:
            cls._out_cls = cls

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self._data!r}, requires_grad={self.requires_grad})"
        )


Tensor._out_cls = Tensor


def wrap(cls: type, data: ndarray, requires_grad: bool = False) -> Tensor:
    """Make a tensor of class ``cls`` around ``data`` without calling ``cls.__init__``."""
    t = object.__new__(cls)
    t._data = data
    t.requires_grad = requires_grad
    t._ctx = None
    return t


def _const(value: Any, like: ndarray) -> Any:
    """A Python scalar operand takes the tensor's dtype (torch's scalar promotion)."""
    kind = like.dtype.kind
    if isinstance(value, float):
        return like.dtype.type(value) if kind in "fc" else DEFAULT_FLOAT.type(value)
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return like.dtype.type(value) if kind in "fciu" else np.int64(value)
    if isinstance(value, (bool, np.bool_)):
        return like.dtype.type(value)
    if isinstance(value, (list, tuple)):
        return np.asarray(value)
    return value


def apply_binary(prim: Primitive, a: Any, b: Any) -> Tensor:
    op = _BINARY.get(prim) or make_binary(prim)
    return op(a, b)


def make_binary(prim: Primitive) -> Callable[[Any, Any], Tensor]:
    """An engine function for a two-input primitive, with the dispatch inlined (the hot path)."""
    forward = prim.forward
    differentiable = prim.differentiable
    new = object.__new__

    def op(a: Any, b: Any) -> Tensor:
        if isinstance(a, Tensor):
            ad = a._data
            cls = a._out_cls
            if isinstance(b, Tensor):
                bd = b._data
                rg = a.requires_grad or b.requires_grad
            else:
                tb = b.__class__
                # Python numbers keep an array's dtype under NumPy's rules, except next to 0-d arrays.
                bd = b if (tb is float or tb is int) and ad.ndim else _const(b, ad)
                rg = a.requires_grad
        elif isinstance(b, Tensor):
            bd = b._data
            cls = b._out_cls
            ta = a.__class__
            ad = a if (ta is float or ta is int) and bd.ndim else _const(a, bd)
            rg = b.requires_grad
        else:
            ad = np.asarray(a)
            bd = np.asarray(b)
            cls = Tensor
            rg = False
        out = forward(ad, bd)
        if out.__class__ is not ndarray:
            out = np.asarray(out)
        if (
            out.dtype is F64
            and getattr(ad, "dtype", None) is not F64
            and getattr(bd, "dtype", None) is not F64
        ):
            out = out.astype(DEFAULT_FLOAT)
        t = new(cls)
        t._data = out
        if rg and _grad_enabled and differentiable:
            t.requires_grad = True
            t._ctx = Node(prim, (a, b), (ad, bd), EMPTY)
        else:
            t.requires_grad = False
            t._ctx = None
        return t

    op.__name__ = prim.name
    _BINARY[prim] = op
    return op


_BINARY: dict[Primitive, Callable] = {}


def apply_unary(prim: Primitive, x: Tensor, params: dict = EMPTY) -> Tensor:
    if not isinstance(x, Tensor):
        x = wrap(Tensor, np.asarray(x))
    xd = x._data
    out = prim.forward(xd, **params)
    if out.__class__ is not ndarray:
        out = np.asarray(out)
    if out.dtype is F64 and xd.dtype.kind != "f":
        out = out.astype(DEFAULT_FLOAT)
    t = object.__new__(x._out_cls)
    t._data = out
    if x.requires_grad and _grad_enabled and prim.differentiable:
        t.requires_grad = True
        t._ctx = Node(prim, (x,), (xd,), params)
    else:
        t.requires_grad = False
        t._ctx = None
    return t


def apply(prim: Primitive, args: Sequence[Any], params: dict = EMPTY) -> Tensor:
    cls = None
    rg = False
    arrays = []
    any_f64 = False
    for a in args:
        if isinstance(a, Tensor):
            if cls is None:
                cls = a._out_cls
            if a.requires_grad:
                rg = True
            d = a._data
            if d.dtype is F64:
                any_f64 = True
            arrays.append(d)
        else:
            if isinstance(a, ndarray) and a.dtype is F64:
                any_f64 = True
            arrays.append(a)
    out = prim.forward(*arrays, **params)
    if out.__class__ is not ndarray:
        out = np.asarray(out)
    if out.dtype is F64 and not any_f64:
        out = out.astype(DEFAULT_FLOAT)
    t = object.__new__(cls or Tensor)
    t._data = out
    if rg and _grad_enabled and prim.differentiable:
        t.requires_grad = True
        t._ctx = Node(prim, tuple(args), tuple(arrays), params)
    else:
        t.requires_grad = False
        t._ctx = None
    return t


# Backends for VJPs; filled in by core_ops once the table is complete.
RAW = SimpleNamespace()
GRAPH = SimpleNamespace()

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)


def backprop(
    outputs: Sequence[Tensor],
    grad_outputs: Sequence[Any],
    create_graph: bool = False,
    retain_graph: bool = False,
    capture: Callable[[Tensor], bool] | None = None,
    targets: Iterable[Tensor] | None = None,
    capture_nonleaf: bool = True,
    hook: Callable[[Tensor, Any], Any] | None = None,
) -> list[tuple[Tensor, Any]]:
    """Reverse sweep from ``outputs``. Returns ``(tensor, grad)`` for every tensor where ``capture``
    is true (default: leaves that require grad); ``capture_nonleaf=False`` asks only about leaves.
    Grads are ndarrays, or Tensors with ``create_graph``; ``grad_outputs`` must match. With
    ``targets``, only the part of the graph that leads to them runs (and only that part is freed),
    as torch.autograd.grad does. ``hook(tensor, grad) -> grad`` sees each tensor's complete grad
    before it is captured or propagated (tensor hooks)."""
    if capture is None:
        capture = _is_leaf
    relevant = None if targets is None else _leading_to(outputs, targets)
    grads: dict[int, Any] = {}
    # Produced tensors wait in a heap keyed by -seq (each is complete once popped); leaves come
    # last, in the order they were reached.
    heap: list = []
    leaves: list[Tensor] = []
    push = heapq.heappush
    pop = heapq.heappop
    for t, g in zip(outputs, grad_outputs):
        k = id(t)
        if k in grads:
            grads[k] = _accumulate(grads[k], g, create_graph)
        else:
            grads[k] = g
            if t._ctx is None:
                leaves.append(t)
            else:
                push(heap, (-t._ctx.seq, k, t))
    B = GRAPH if create_graph else RAW
    captured: list[tuple[Tensor, Any]] = []
    previous = set_grad_enabled(create_graph)
    try:
        while heap:
            _, k, t = pop(heap)
            g = grads.pop(k)
            if relevant is not None and k not in relevant:
                continue
            if hook is not None:
                g = hook(t, g)
            if capture_nonleaf and capture(t):
                captured.append((t, g))
            ctx = t._ctx
            prim = ctx.prim
            saves = prim.saves
            if ctx.freed and saves:
                raise RuntimeError(FREED_MESSAGE)
            inputs = ctx.inputs
            owned = False
            if create_graph:
                args, ans = inputs, t
            else:
                args, ans = ctx.arrays, t._data
                # Nothing else refers to g (no other grad, view, node or caller): a VJP that
                # may write its result into g's buffer can be used.
                owned = (
                    prim.owned_vjp is not None
                    and g.__class__ is ndarray
                    and sys.getrefcount(g) == _SOLE
                    and g.base is None
                    and g.flags.writeable
                )
            argnum_vjp = prim.argnum_vjp
            params = ctx.params
            # (input, VJP maker) pairs; inputs past the last maker get no gradient.
            pairs = (
                zip(inputs, prim.vjps)
                if argnum_vjp is None
                else zip(inputs, range(len(inputs)))
            )
            for p, maker in pairs:
                if maker is None or not (isinstance(p, Tensor) and p.requires_grad):
                    continue
                pk = id(p)
                if relevant is not None and pk not in relevant:
                    continue
                if argnum_vjp is not None:
                    gi = argnum_vjp(maker, B, g, ans, *args, **params)
                elif owned:
                    gi = prim.owned_vjp(g, ans, *args, **params)
                    owned = False
                elif params:
                    gi = maker(B, g, ans, *args, **params)
                else:
                    gi = maker(B, g, ans, *args)
                if gi is None:
                    continue
                if not create_graph:
                    # NumPy promotes 0-d float32 with Python floats to float64; grads keep the input dtype.
                    pd = p._data.dtype
                    if gi.dtype is not pd and pd.kind == "f":
                        gi = gi.astype(pd)
                old = grads.get(pk)
                if old is None:
                    grads[pk] = gi
                    pctx = p._ctx
                    if pctx is None:
                        leaves.append(p)
                    else:
                        push(heap, (-pctx.seq, pk, p))
                else:
                    grads[pk] = _accumulate(old, gi, create_graph)
            if not retain_graph:
                _free(ctx, inputs, saves)
        for t in leaves:
            k = id(t)
            if relevant is not None and k not in relevant:
                continue
            g = grads[k]
            if hook is not None:
                g = hook(t, g)
            if capture(t):
                captured.append((t, g))
    finally:
        set_grad_enabled(previous)
    return captured


def _free(ctx: Node, inputs: tuple, saves: bool) -> None:
    """Mark a node swept without ``retain_graph``. Like torch freeing saved tensors, intermediate
    activations can go now (leaves stay): running through the node again raises, and the
    (id, producer) ghosts left in place of its inputs keep the graph's shape for pruning."""
    ctx.freed = True
    if saves:
        ctx.inputs = tuple(
            [
                (id(p), p._ctx) if isinstance(p, Tensor) and p._ctx is not None else p
                for p in inputs
            ]
        )
        ctx.arrays = ()


def backprop_raw(
    output: Tensor,
    seed: ndarray,
    retain_graph: bool,
    capture: Callable[[Tensor], bool] | None,
    capture_nonleaf: bool,
) -> list[tuple[Tensor, Any]]:
    """``backprop`` for the common first-order call: one output with an ndarray seed, no targets,
    no hooks. Same results; the branches the general sweep needs are left out. ``capture=None``
    captures every leaf (and, as ``capture_nonleaf`` must then be false, nothing else)."""
    global _grad_enabled
    ctx0 = output._ctx
    if ctx0 is None:
        return [(output, seed)] if capture is None or capture(output) else []
    grads: dict[int, Any] = {id(output): seed}
    heap: list = [(-ctx0.seq, id(output), output)]
    leaves: list[Tensor] = []
    captured: list[tuple[Tensor, Any]] = []
    push = heapq.heappush
    pop = heapq.heappop
    getrefcount = sys.getrefcount
    previous = _grad_enabled
    _grad_enabled = False
    try:
        while heap:
            _, k, t = pop(heap)
            g = grads.pop(k)
            if capture_nonleaf and capture(t):
                captured.append((t, g))
            ctx = t._ctx
            prim = ctx.prim
            saves = prim.saves
            if ctx.freed and saves:
                raise RuntimeError(FREED_MESSAGE)
            inputs = ctx.inputs
            args = ctx.arrays
            ans = t._data
            params = ctx.params
            argnum_vjp = prim.argnum_vjp
            makers = prim.vjps
            owned = prim.owned_vjp
            if owned is not None and not (
                g.__class__ is ndarray
                and getrefcount(g) == _SOLE
                and g.base is None
                and g.flags.writeable
            ):
                owned = None
            # Inputs past the last VJP maker get no gradient.
            n = len(inputs) if argnum_vjp is not None else len(makers)
            for i, p in enumerate(inputs):
                if i == n:
                    break
                if not (isinstance(p, Tensor) and p.requires_grad):
                    continue
                if argnum_vjp is not None:
                    gi = argnum_vjp(i, RAW, g, ans, *args, **params)
                elif owned is not None:
                    gi = owned(g, ans, *args, **params)
                    owned = None
                else:
                    maker = makers[i]
                    if maker is None:
                        continue
                    gi = (
                        maker(RAW, g, ans, *args, **params)
                        if params
                        else maker(RAW, g, ans, *args)
                    )
                if gi is None:
                    continue
                # NumPy promotes 0-d float32 with Python floats to float64; grads keep the input dtype.
                pd = p._data.dtype
                if gi.dtype is not pd and pd.kind == "f":
                    gi = gi.astype(pd)
                pk = id(p)
                old = grads.get(pk)
                if old is None:
                    grads[pk] = gi
                    pctx = p._ctx
                    if pctx is None:
                        leaves.append(p)
                    else:
                        push(heap, (-pctx.seq, pk, p))
                else:
                    grads[pk] = old + gi
            if not retain_graph:
                # _free, inline: this loop is the hot path of every backward().
                ctx.freed = True
                if saves:
                    ctx.inputs = tuple(
                        [
                            (id(p), p._ctx)
                            if isinstance(p, Tensor) and p._ctx is not None
                            else p
                            for p in inputs
                        ]
                    )
                    ctx.arrays = ()
        if capture is None:
            captured = [(t, grads[id(t)]) for t in leaves]
        else:
            for t in leaves:
                if capture(t):
                    captured.append((t, grads[id(t)]))
    finally:
        _grad_enabled = previous
    return captured


def _edges(ctx: Node) -> list[tuple[int, Node | None]]:
    """(id, producer) of each input that can carry a gradient; a freed node keeps exactly these
    pairs ("ghosts") in place of its intermediate input tensors."""
    out = []
    for p in ctx.inputs:
        if isinstance(p, Tensor):
            if p.requires_grad:
                out.append((id(p), p._ctx))
        elif p.__class__ is tuple:
            out.append(p)
    return out


def _leading_to(outputs: Sequence[Tensor], targets: Iterable[Tensor]) -> set[int]:
    """ids of the tensors from which some target can be reached (the targets included)."""
    relevant = {id(t) for t in targets}
    seen: set[int] = set()
    produced: list[tuple[int, Node]] = []
    stack = [(id(t), t._ctx) for t in outputs]
    while stack:
        key, ctx = stack.pop()
        if key in seen:
            continue
        seen.add(key)
        if ctx is not None:
            produced.append((key, ctx))
            stack.extend(_edges(ctx))
    for key, ctx in sorted(produced, key=lambda item: item[1].seq):
        if any(parent in relevant for parent, _ in _edges(ctx)):
            relevant.add(key)
    return relevant


def _is_leaf(t: Tensor) -> bool:
    return t._ctx is None


def _accumulate(old: Any, new: Any, create_graph: bool) -> Any:
    if create_graph:
        return GRAPH.add(old, new)
    return old + new


def grad(
    outputs: Tensor | Sequence[Tensor],
    inputs: Tensor | Sequence[Tensor],
    grad_outputs: Any = None,
    create_graph: bool = False,
    allow_unused: bool = False,
    retain_graph: bool | None = None,
) -> list[Tensor | None]:
    """Gradients of ``outputs`` with respect to ``inputs`` (reverse mode over the recorded graph)."""
    outputs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    inputs = [inputs] if isinstance(inputs, Tensor) else list(inputs)
    if retain_graph is None:
        retain_graph = create_graph
    if grad_outputs is None or isinstance(grad_outputs, Tensor):
        grad_outputs = (
            [grad_outputs] * len(outputs) if grad_outputs is None else [grad_outputs]
        )
    seeds = []
    for out, g in zip(outputs, grad_outputs):
        if g is None:
            g = np.ones_like(out._data)
        elif isinstance(g, Tensor):
            g = g if create_graph else g._data
        else:
            g = np.asarray(g, dtype=out._data.dtype)
        if create_graph and not isinstance(g, Tensor):
            g = wrap(out._out_cls, g)
        seeds.append(g)
    wanted = {id(t) for t in inputs}
    swept = backprop(
        outputs, seeds, create_graph, retain_graph, lambda t: id(t) in wanted, inputs
    )
    found = {id(t): g for t, g in swept}
    result: list[Tensor | None] = []
    for t in inputs:
        g = found.get(id(t))
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    "One of the differentiated Tensors appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior."
                )
            result.append(None)
        elif isinstance(g, Tensor):
            result.append(g)
        else:
            result.append(wrap(t._out_cls, _owned(g)))
    return result


def _owned(g: Any) -> ndarray:
    """A gradient array that no other tensor shares (VJPs may pass arrays through unchanged)."""
    if g.__class__ is not ndarray:
        return np.asarray(g)
    if g.base is not None or not g.flags.writeable:
        return g.copy()
    return g


def raw(x: Any) -> Any:
    """The ndarray behind a tensor (constants pass through); used for masks inside VJPs."""
    return x._data if isinstance(x, Tensor) else x
