"""A gradient hook on a parameter scales its gradient during training (a per-layer learning rate trick)."""

import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(32)
x = torch.tensor(rng.standard_normal((8, 3)), dtype=torch.float32)
y = torch.tensor(rng.standard_normal((8, 1)), dtype=torch.float32)

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
model[0].weight.register_hook(lambda grad: grad * 0.1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    print("step", step, "loss", loss.item())
