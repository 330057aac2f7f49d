"""Gradient clipping on gradient values, where the clipping is chosen at run time."""

import mindspore
from mindspore import ops


def _norm_of(x, norm_type, axis=None, keepdims=False):
    """The p-norm of ``x`` (over ``axis``), p = inf included, as ``torch.linalg.vector_norm``."""
    x = ops.abs(x)
    if norm_type == float("inf"):
        return x.max(axis=axis, keepdims=keepdims)
    if norm_type == 2.0:
        return ops.sqrt((x * x).sum(axis=axis, keepdims=keepdims))
    return ops.pow(
        ops.pow(x, norm_type).sum(axis=axis, keepdims=keepdims), 1.0 / norm_type
    )


def _unitwise_norm(x, norm_type):
    """The norm of each output unit (over every axis but the first); of the whole tensor for
    scalars and vectors."""
    if x.ndim <= 1:
        return _norm_of(x, norm_type)
    return _norm_of(x, norm_type, axis=tuple(range(1, x.ndim)), keepdims=True)


def clip_grads(grads, parameters, clip_parameters, value, mode="norm", norm_type=2.0):
    """The gradients clipped as timm's ``dispatch_clip_grad(clip_parameters, value, mode)`` (and
    torch's ``clip_grad_norm_`` / ``clip_grad_value_``) clip the ``.grad`` of ``clip_parameters``.

    ``grads`` are gradient values in the order of ``parameters`` (an optimizer's). Only those of
    the parameters in ``clip_parameters`` (all of them when it is None) are clipped; the tuple
    returned holds the others unchanged. ``mode`` is read here, at run time:
    - ``"norm"``: scaled by ``value / (total_norm + 1e-6)`` where that is below 1, the total norm
      being the ``norm_type``-norm of the gradients' norms (torch's ``clip_grad_norm_``);
    - ``"value"``: clamped to ``[-value, value]`` (torch's ``clip_grad_value_``);
    - ``"agc"``: adaptive clipping unit by unit, each unit's gradient norm bounded by
      ``value`` times its parameter's norm (at least 1e-3), as timm's ``adaptive_clip_grad``.
    """
    parameters = list(parameters)
    if clip_parameters is None:
        chosen = list(range(len(parameters)))
    else:
        if isinstance(clip_parameters, mindspore.Tensor):
            clip_parameters = [clip_parameters]
        clip_parameters = list(clip_parameters)
        ids = {id(p) for p in clip_parameters}
        names = {getattr(p, "name", None) for p in clip_parameters} - {None}
        chosen = [
            i
            for i, p in enumerate(parameters)
            if id(p) in ids or getattr(p, "name", None) in names
        ]
    grads = list(grads)
    if mode == "norm":
        if not chosen:
            return tuple(grads)
        norms = ops.stack([_norm_of(grads[i], float(norm_type)) for i in chosen])
        total = _norm_of(norms, float(norm_type))
        coef = ops.clamp(value / (total + 1e-6), max=1.0)
        for i in chosen:
            grads[i] = grads[i] * coef.astype(grads[i].dtype)
    elif mode == "value":
        for i in chosen:
            grads[i] = ops.clamp(grads[i], -value, value)
    elif mode == "agc":
        for i in chosen:
            weight = ops.stop_gradient(parameters[i])
            grad = grads[i]
            max_norm = ops.clamp(_unitwise_norm(weight, norm_type), min=1e-3) * value
            grad_norm = _unitwise_norm(grad, norm_type)
            clipped = grad * (max_norm / ops.clamp(grad_norm, min=1e-6))
            grads[i] = ops.where(grad_norm < max_norm, grad, clipped)
    else:
        raise ValueError(f"Unknown clip mode ({mode}).")
    return tuple(grads)


class _GradOf:
    """A stand-in for a parameter whose ``.grad`` holds a gradient value."""

    __slots__ = ("grad",)

    def __init__(self, grad):
        self.grad = grad


def grad_holders(grads):
    """``grads`` as objects whose ``.grad`` is each gradient, for a function of the program
    that reads only the ``.grad`` of the parameters it is given (a gradient-norm helper)."""
    return [_GradOf(g) for g in grads]
