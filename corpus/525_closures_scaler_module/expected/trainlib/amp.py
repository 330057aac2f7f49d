"""Mixed-precision helpers: a loss scaler that scales, runs backward and, when an update is due,
unscales, clips, steps and updates its scale."""

from mindspore import amp, ops


class ScalerStep:
    state_dict_key = "amp_scaler"

    def __init__(self, init_scale=128.0):
        self._scaler = amp.DynamicLossScaler(scale_value=init_scale, scale_factor=2, scale_window=2)

    def __call__(self, grads, optimizer, clip_grad=None, parameters=None, need_update=True):
        grads_unscaled = False
        if need_update:
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

    def scale(self):
        return float(self._scaler.scale_value)
