"""A loss scaler whose clipping mode is chosen by its caller at run time."""

from mindspore import amp
from . import ms_aux


class ChosenScaler:
    state_dict_key = "amp_scaler"

    def __init__(self, init_scale=64.0):
        self._scaler = amp.DynamicLossScaler(scale_value=init_scale, scale_factor=2, scale_window=2)

    def __call__(self, grads, optimizer, clip_grad=None, clip_mode="norm", parameters=None,
                 create_graph=False, need_update=True):
        grads_unscaled = False
        if need_update:
            if clip_grad is not None:
                grads = self._scaler.unscale(grads)
                grads_unscaled = True
                grads = ms_aux.clip_grads(grads, optimizer.parameters, parameters, clip_grad, clip_mode, 2.0)
            if not grads_unscaled:
                grads = self._scaler.unscale(grads)
            grads_finite = amp.all_finite(grads)
            if grads_finite:
                optimizer(grads)
            self._scaler.adjust(grads_finite)
        return grads

    def scale(self):
        return float(self._scaler.scale_value)
