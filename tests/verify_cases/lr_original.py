import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(0)
x = torch.tensor(rng.standard_normal((8, 3)), dtype=torch.float32)
y = torch.tensor(rng.standard_normal((8, 1)), dtype=torch.float32)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.MSELoss()
for step in range(3):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    print("step", step, "loss", loss.item())
