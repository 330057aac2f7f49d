"""--style cell on the simplest loop: Adam, one Linear layer, inputs bound once before the loop and
the loss written as criterion(model(x), y)."""

import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(261)
model = nn.Linear(4, 2)
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=torch.float32))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
loss_fn = nn.MSELoss()
x = torch.tensor(rng.standard_normal((8, 4)), dtype=torch.float32); y = torch.tensor(rng.standard_normal((8, 2)), dtype=torch.float32)
for step in range(3):
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    print("step", step, "loss", loss.item())
print("final", [p.sum().item() for p in model.parameters()])
