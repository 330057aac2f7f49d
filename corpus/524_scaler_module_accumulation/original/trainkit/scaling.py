"""A loss scaler in the style of the vision trainers, in its own module of the package."""

import torch


class ScaledStep:
    state_dict_key = "amp_scaler"

    def __init__(self):
        self._scaler = torch.amp.GradScaler("cpu", init_scale=256.0, growth_interval=3)

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
