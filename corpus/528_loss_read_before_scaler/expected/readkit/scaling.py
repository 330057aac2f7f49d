"""A loss scaler in the style of the masked-autoencoder trainers."""

from mindspore import amp, ops


class ScalerWithClip:
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
            if not grads_unscaled:
                grads = self._scaler.unscale(grads)
            grads_finite = amp.all_finite(grads)
            if grads_finite:
                optimizer(grads)
            self._scaler.adjust(grads_finite)
        return grads

    def current_scale(self):
        return float(self._scaler.scale_value)
