"""Gradient monitoring: retain_grad on an activation, and gradient norms logged from p.grad."""

import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(25)
inputs = torch.tensor(rng.standard_normal((8, 3)), dtype=torch.float32)
targets = torch.tensor(rng.standard_normal((8, 1)), dtype=torch.float32)

torch.manual_seed(0)
encoder = nn.Linear(3, 5)
decoder = nn.Linear(5, 1)
optimizer = torch.optim.SGD(list(encoder.parameters()) + list(decoder.parameters()), lr=0.1)

for step in range(3):
    optimizer.zero_grad()
    hidden = torch.tanh(encoder(inputs))
    hidden.retain_grad()
    loss = ((decoder(hidden) - targets) ** 2).mean()
    loss.backward()
    grad_norm = sum(p.grad.norm() ** 2 for p in encoder.parameters()) ** 0.5
    print("step", step, "loss", loss.item(), "encoder grad norm", grad_norm.item())
    print("hidden grad", hidden.grad.abs().sum().item())
    optimizer.step()
