"""Reference autodiff engine shared by the torch and mindspore facades (NumPy only).

Public API (all names are ``core.<name>``; the layout behind them may change, these names do not):

Tensors and graph
    ``Tensor(data, requires_grad=False)``: ``__slots__`` node with ``_data`` (the ndarray),
    ``requires_grad`` and ``_ctx`` (the producing ``Node`` or None). ``t.data`` is a get/set property
    over ``_data`` on the base class; the torch facade overrides ``data`` with torch's meaning (a
    detached torch Tensor), so code meant for every facade's tensors reads ``t._data`` (also the fast
    path). Facade classes subclass Tensor. An op's output has the class ``_out_cls`` of its first
    Tensor argument: each subclass's own class unless it sets ``_out_cls`` in its body (a Parameter
    class sets it to its framework's Tensor class). Op outputs are made with ``object.__new__``, so
    subclasses keep extra per-tensor state as class-level defaults (instances get a lazy
    ``__dict__``). ``wrap(cls, array, requires_grad=False)`` builds one without ``__init__``.
    Operators (+ - * / ** @, comparisons, unary -, indexing) call the ops below.
    ``Node``: ``prim``, ``inputs`` (tensors and constants), ``arrays`` (their ndarrays), ``params``,
    ``seq`` (creation order), ``name`` (None, or a facade's name such as torch's ``AddBackward0``),
    ``freed`` and ``aux`` (free for a facade).

Grad mode
    ``is_grad_enabled()``, ``set_grad_enabled(flag) -> previous``, ``grad_mode(flag)`` (context manager).
    An op records a Node iff grad mode is on and some Tensor input requires grad.

Primitives (``PRIMITIVES``: name -> ``Primitive``; ``defprim(name, forward, *vjps, ...)`` adds one)
    add sub mul div pow neg abs exp log log1p sqrt sin cos tanh sigmoid relu erf sign floor ceil round
    clamp(x, min, max) where(cond, a, b) maximum minimum eq ne lt le gt ge logical_and/or/not
    cast(x, dtype) copy sum/mean/max/min(x, axis=None, keepdims=False) argmax/argmin(x, axis, keepdims)
    matmul (batched, 1-D aware) linear(x, w, b) reshape transpose(x, axes) swapaxes squeeze unsqueeze
    flatten(x, start, end) sum_to broadcast_to concat(seq, axis) stack(seq, axis) getitem(x, index)
    index_add gather(x, axis, index) scatter_add pad(x, pads, value) softmax/log_softmax(x, axis)
    softmax_cross_entropy(logits, target)
    im2col col2im.  Composites: split(x, sizes_or_sections, axis) chunk gelu(x, approximate)
    conv2d(x, w, b, stride, padding, dilation, groups) max_pool2d avg_pool2d batch_norm batch_stats
    layer_norm dropout embedding mse_loss l1_loss smooth_l1_loss(beta) nll_loss
    cross_entropy(logits, target, reduction, ignore_index, label_smoothing, weight)
    binary_cross_entropy binary_cross_entropy_with_logits logsumexp var.
    Python scalars take the tensor's dtype; integer-only results of float ops become the default
    float (float32; ``set_default_float(dtype)`` changes it).

Differentiation
    ``grad(outputs, inputs, grad_outputs=None, create_graph=False, allow_unused=False,
    retain_graph=None) -> list[Tensor | None]``.
    ``backprop(outputs, seeds, create_graph, retain_graph, capture, targets, capture_nonleaf)
    -> [(tensor, grad)]`` is the lower-level sweep facades use for ``backward()`` (seeds and grads are
    ndarrays unless ``create_graph``; ``targets`` prunes the sweep to what leads to them). Nodes run
    in decreasing ``seq``; a VJP is ``vjp(B, g, ans, *args, **params)`` where ``B`` is ``RAW`` (the
    NumPy forwards, used without ``create_graph``) or ``GRAPH`` (the engine ops, so higher order works).
    Without ``retain_graph`` the visited nodes are freed. A freed node whose primitive ``saves``
    its inputs lets go of them (intermediate inputs become ``(id, producer node)`` pairs, no
    data), and running through it again raises RuntimeError("Trying to backward through the graph a
    second time ..."); nodes that save nothing (add, sum, reshape ...) can be run again, as in torch.

Randomness and initialisers (one shared ``rng``)
    ``manual_seed(n)``, ``rng_normal(shape, mean, std)``, ``rng_uniform(shape, low, high)``,
    ``rng_bernoulli(shape, p)`` (bool mask), ``rng_randint(low, high, shape)``, ``rng_permutation(n)``;
    each takes ``gen=`` (a private stream from ``new_generator(seed)``) instead of the shared one.
    ``init_uniform(shape, bound)``, ``init_kaiming_uniform(shape, a, fan_in)``, ``init_kaiming_normal``,
    ``init_xavier_uniform/normal``, ``init_normal``, ``init_linear(out, in, bias) -> (w, b)``,
    ``init_conv(out, in_per_group, kernel, bias) -> (w, b)``, ``fan_in_out``, ``calculate_gain``.
"""

from __future__ import annotations

from . import core_engine as _engine
from .core_engine import (  # noqa: F401
    DEFAULT_FLOAT,
    F32,
    F64,
    FREED_MESSAGE,
    GRAPH,
    PRIMITIVES,
    RAW,
    Node,
    Primitive,
    Tensor,
    apply,
    apply_binary,
    apply_unary,
    backprop,
    backprop_raw,
    defprim,
    grad,
    grad_mode,
    is_grad_enabled,
    raw,
    set_default_float,
    set_grad_enabled,
    wrap,
)
from .core_nn import (  # noqa: F401
    avg_pool2d,
    batch_norm,
    batch_stats,
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    conv2d,
    cross_entropy,
    dropout,
    embedding,
    gelu,
    l1_loss,
    layer_norm,
    logsumexp,
    max_pool2d,
    mse_loss,
    nll_loss,
    smooth_l1_loss,
    var,
)
from .core_ops import (  # noqa: F401
    abs,
    add,
    argmax,
    argmin,
    cast,
    ceil,
    clamp,
    copy,
    cos,
    div,
    eq,
    erf,
    exp,
    floor,
    ge,
    gt,
    le,
    linear,
    log,
    log1p,
    logical_and,
    logical_not,
    logical_or,
    lt,
    matmul,
    max,
    maximum,
    mean,
    min,
    minimum,
    mul,
    ne,
    neg,
    pow,
    relu,
    round,
    sigmoid,
    sign,
    sin,
    sqrt,
    sub,
    sum,
    tanh,
    where,
)
from .core_ops_nn import (  # noqa: F401
    col2im,
    im2col,
    log_softmax,
    softmax,
    softmax_cross_entropy,
)
from .core_ops_shape import (  # noqa: F401
    broadcast_to,
    chunk,
    concat,
    flatten,
    gather,
    getitem,
    index_add,
    pad,
    reshape,
    scatter_add,
    split,
    squeeze,
    stack,
    sum_to,
    swapaxes,
    transpose,
    unsqueeze,
)
from .core_random import (  # noqa: F401
    calculate_gain,
    fan_in_out,
    init_conv,
    init_kaiming_normal,
    init_kaiming_uniform,
    init_linear,
    init_normal,
    init_uniform,
    init_xavier_normal,
    init_xavier_uniform,
    manual_seed,
    new_generator,
    rng,
    rng_bernoulli,
    rng_normal,
    rng_permutation,
    rng_randint,
    rng_uniform,
)

# Backends for VJPs: RAW runs the NumPy forwards, GRAPH the engine functions of the same names.
_engine.RAW.__dict__.update({name: prim.forward for name, prim in PRIMITIVES.items()})
_engine.GRAPH.__dict__.update({name: globals()[name] for name in PRIMITIVES})


def _reflected(fn):
    def op(self, other):
        return fn(other, self)

    return op


Tensor.__add__ = add
Tensor.__radd__ = _reflected(add)
Tensor.__sub__ = sub
Tensor.__rsub__ = _reflected(sub)
Tensor.__mul__ = mul
Tensor.__rmul__ = _reflected(mul)
Tensor.__truediv__ = div
Tensor.__rtruediv__ = _reflected(div)
Tensor.__pow__ = pow
Tensor.__rpow__ = _reflected(pow)
Tensor.__matmul__ = matmul
Tensor.__rmatmul__ = _reflected(matmul)
Tensor.__neg__ = neg
Tensor.__abs__ = abs
Tensor.__eq__ = eq
Tensor.__ne__ = ne
Tensor.__lt__ = lt
Tensor.__le__ = le
Tensor.__gt__ = gt
Tensor.__ge__ = ge
Tensor.__getitem__ = getitem
Tensor.__hash__ = object.__hash__
