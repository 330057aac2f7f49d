"""A plain training loop converted in the TrainOneStepCell style (--style cell)."""

import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(20)
inputs = torch.tensor(rng.standard_normal((16, 4)), dtype=torch.float32)
targets = torch.tensor(rng.standard_normal((16, 1)), dtype=torch.float32)

torch.manual_seed(0)
network = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(network.parameters(), lr=0.05, momentum=0.9)
for epoch in range(4):
    optimizer.zero_grad()
    loss = loss_fn(network(inputs), targets)
    loss.backward()
    optimizer.step()
    print("epoch", epoch, "loss", loss.item())
