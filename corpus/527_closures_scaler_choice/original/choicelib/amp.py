"""A loss scaler whose clipping mode is chosen by its caller at run time."""

import torch
from timm.utils import dispatch_clip_grad


class ChosenScaler:
    state_dict_key = "amp_scaler"

    def __init__(self, init_scale=64.0):
        self._scaler = torch.amp.GradScaler("cpu", init_scale=init_scale, growth_interval=2)

    def __call__(self, loss, optimizer, clip_grad=None, clip_mode="norm", parameters=None,
                 create_graph=False, need_update=True):
        self._scaler.scale(loss).backward(create_graph=create_graph)
        if need_update:
            if clip_grad is not None:
                self._scaler.unscale_(optimizer)
                dispatch_clip_grad(parameters, clip_grad, mode=clip_mode)
            self._scaler.step(optimizer)
            self._scaler.update()

    def scale(self):
        return self._scaler.get_scale()
