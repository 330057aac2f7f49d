"""A loss scaler in the style of the masked-autoencoder trainers."""

import torch


class ScalerWithClip:
    state_dict_key = "amp_scaler"

    def __init__(self):
        self._scaler = torch.amp.GradScaler("cpu", init_scale=128.0, growth_interval=2)

    def __call__(
        self, loss, optimizer, clip_grad=None, parameters=None, update_grad=True
    ):
        self._scaler.scale(loss).backward()
        if update_grad:
            if clip_grad is not None:
                self._scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(parameters, clip_grad)
            self._scaler.step(optimizer)
            self._scaler.update()

    def current_scale(self):
        return self._scaler.get_scale()
