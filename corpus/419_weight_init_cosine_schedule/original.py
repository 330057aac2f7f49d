"""Weights initialised with model.apply(init_fn) and nn.init, trained with a cosine schedule."""

import math

import numpy as np
import torch
import torch.nn as nn


def init_weights(module):
    if isinstance(module, nn.Linear):
        nn.init.xavier_uniform_(module.weight)
        nn.init.constant_(module.bias, 0.01)


rng = np.random.default_rng(21)
x = torch.tensor(rng.standard_normal((12, 3)), dtype=torch.float32)
y = torch.tensor(np.sin(rng.standard_normal((12, 1))), dtype=torch.float32)

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
model.apply(init_weights)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=4)
for epoch in range(4):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    scheduler.step()
    print("epoch", epoch, "loss", loss.item(), "lr", scheduler.get_last_lr()[0])
print("expected final lr", 0.05 * (1 + math.cos(math.pi * 4 / 4)))
