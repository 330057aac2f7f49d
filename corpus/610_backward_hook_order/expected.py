"""Gradient hooks on a layer: one logs what reaches it, one registered later must run first."""

import mindspore
from mindspore import nn, ops

seen = []


def log_grad(module, grad_input, grad_output):
    seen.append(("log", grad_output[0].abs().sum().item()))


def clip_first(module, grad_input, grad_output):
    seen.append(("clip", grad_output[0].abs().sum().item()))
    return tuple(g.clamp(-1.0, 1.0) if g is not None else None for g in grad_input)


layer = nn.Dense(3, 2)
layer.register_backward_hook(log_grad)
# torch2ms: TM962 `register_full_backward_hook(prepend=True)`: MindSpore's `Cell.register_backward_hook` takes no `prepend`; a Cell runs its backward hooks in the order they are registered
layer.register_full_backward_hook(clip_first, prepend=True)
x = ops.ones((4, 3))
def forward_fn(x):
    return layer(x).sum()
x_grad = mindspore.grad(forward_fn, grad_position=0)(x)
print("hooks", [name for name, _ in seen])
