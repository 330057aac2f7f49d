"""Gradient monitoring: retain_grad on an activation, and gradient norms logged from p.grad."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim

rng = np.random.default_rng(25)
inputs = mindspore.tensor(rng.standard_normal((8, 3)), dtype=mindspore.float32)
targets = mindspore.tensor(rng.standard_normal((8, 1)), dtype=mindspore.float32)

mindspore.manual_seed(0)
encoder = nn.Dense(3, 5)
decoder = nn.Dense(5, 1)
encoder.update_parameters_name("encoder.")
decoder.update_parameters_name("decoder.")
optimizer = optim.SGD(list(encoder.trainable_params()) + list(decoder.trainable_params()), lr=0.1)

for step in range(3):
    import torch
    # torch2ms: TM900 `.zero_grad()` is not converted: no certain MindSpore mapping; it still runs on torch
    optimizer.zero_grad()
    hidden = ops.tanh(encoder(inputs))
    # torch2ms: TM900 `.retain_grad()` is not converted: no certain MindSpore mapping; it still runs on torch
    hidden.retain_grad()
    loss = ((decoder(hidden) - targets) ** 2).mean()
    # torch2ms: TM926 left unconverted with the rest of its training step
    loss.backward()
    # torch2ms: TM927 `.grad` is read here, outside the update statements; the training step is left unconverted
    grad_norm = sum(p.grad.norm() ** 2 for p in encoder.trainable_params()) ** 0.5
    print("step", step, "loss", loss.item(), "encoder grad norm", grad_norm.item())
    # torch2ms: TM927 `.grad` is read here, outside the update statements; the training step is left unconverted
    print("hidden grad", hidden.grad.abs().sum().item())
    optimizer.step()
