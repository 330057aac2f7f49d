"""Gradient hooks on a layer: one logs what reaches it, one registered later must run first."""

import torch
import torch.nn as nn

seen = []


def log_grad(module, grad_input, grad_output):
    seen.append(("log", grad_output[0].abs().sum().item()))


def clip_first(module, grad_input, grad_output):
    seen.append(("clip", grad_output[0].abs().sum().item()))
    return tuple(g.clamp(-1.0, 1.0) if g is not None else None for g in grad_input)


layer = nn.Linear(3, 2)
layer.register_full_backward_hook(log_grad, prepend=False)
layer.register_full_backward_hook(clip_first, prepend=True)
x = torch.ones(4, 3, requires_grad=True)
layer(x).sum().backward()
print("hooks", [name for name, _ in seen])
