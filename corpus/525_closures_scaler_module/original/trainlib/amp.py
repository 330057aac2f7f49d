"""Mixed-precision helpers: a loss scaler that scales, runs backward and, when an update is due,
unscales, clips, steps and updates its scale."""

import torch


class ScalerStep:
    state_dict_key = "amp_scaler"

    def __init__(self, init_scale=128.0):
        self._scaler = torch.amp.GradScaler("cpu", init_scale=init_scale, growth_interval=2)

    def __call__(self, loss, optimizer, clip_grad=None, parameters=None, need_update=True):
        self._scaler.scale(loss).backward()
        if need_update:
            if clip_grad is not None:
                self._scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(parameters, clip_grad)
            self._scaler.step(optimizer)
            self._scaler.update()

    def scale(self):
        return self._scaler.get_scale()
