"""A loss scaler that returns the gradient norm, as the masked-autoencoder trainers write it."""

import math

import torch


def grad_norm_of(parameters, norm_type: float = 2.0) -> torch.Tensor:
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    parameters = [p for p in parameters if p.grad is not None]
    norm_type = float(norm_type)
    if len(parameters) == 0:
        return torch.tensor(0.0)
    if norm_type == math.inf:
        return max(p.grad.detach().abs().max() for p in parameters)
    return torch.norm(
        torch.stack([torch.norm(p.grad.detach(), norm_type) for p in parameters]),
        norm_type,
    )


class ScalerWithNorm:
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
                norm = torch.nn.utils.clip_grad_norm_(parameters, clip_grad)
            else:
                self._scaler.unscale_(optimizer)
                norm = grad_norm_of(parameters)
            self._scaler.step(optimizer)
            self._scaler.update()
        else:
            norm = None
        return norm

    def current_scale(self):
        return self._scaler.get_scale()
