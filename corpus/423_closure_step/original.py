"""optimizer.step(closure): the closure re-evaluates the loss, as LBFGS-style code is written."""

import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(24)
x = torch.tensor(rng.standard_normal((10, 2)), dtype=torch.float32)
y = torch.tensor(rng.standard_normal((10, 1)), dtype=torch.float32)

torch.manual_seed(0)
model = nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.MSELoss()


def closure():
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    return loss


for step in range(4):
    loss = optimizer.step(closure)
    print("step", step, "loss", loss.item())
