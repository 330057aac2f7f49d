"""A loss scaler that returns the gradient norm, as the masked-autoencoder trainers write it."""

import math

import mindspore
from mindspore import amp, ops
from . import ms_aux


def grad_norm_of(parameters, norm_type: float = 2.0) -> mindspore.Tensor:
    if isinstance(parameters, mindspore.Tensor):
        parameters = [parameters]
    parameters = [p for p in parameters if p.grad is not None]
    norm_type = float(norm_type)
    if len(parameters) == 0:
        return mindspore.tensor(0.0)
    if norm_type == math.inf:
        return max(ops.stop_gradient(p.grad).abs().max() for p in parameters)
    return ms_aux.torch_norm(
        ops.stack([ms_aux.torch_norm(ops.stop_gradient(p.grad), norm_type) for p in parameters]),
        norm_type,
    )


class ScalerWithNorm:
    state_dict_key = "amp_scaler"

    def __init__(self):
        self._scaler = amp.DynamicLossScaler(scale_value=128, scale_factor=2, scale_window=2)

    def __call__(
        self, grads, optimizer, clip_grad=None, parameters=None, update_grad=True
    ):
        grads_unscaled = False
        if update_grad:
            if clip_grad is not None:
                grads = self._scaler.unscale(grads)
                grads_unscaled = True
                grad_norm = ops.norm(ops.stack([ops.norm(g) for g in grads]))
                grads = tuple(g * ops.clamp(clip_grad / (grad_norm + 1e-6), max=1.0) for g in grads)
                norm = grad_norm
            else:
                grads = self._scaler.unscale(grads)
                grads_unscaled = True
                norm = grad_norm_of(ms_aux.grad_holders(grads))
            if not grads_unscaled:
                grads = self._scaler.unscale(grads)
            grads_finite = amp.all_finite(grads)
            if grads_finite:
                optimizer(grads)
            self._scaler.adjust(grads_finite)
        else:
            norm = None
        return grads, norm

    def current_scale(self):
        return float(self._scaler.scale_value)
