"""Learning rate decayed by hand every two epochs, as older training scripts do it."""

import numpy as np
import torch
import torch.nn as nn


def adjust_learning_rate(optimizer, epoch, decay=0.5):
    if epoch > 0 and epoch % 2 == 0:
        for param_group in optimizer.param_groups:
            param_group["lr"] *= decay


rng = np.random.default_rng(37)
inputs = torch.tensor(rng.standard_normal((16, 3)), dtype=torch.float32)
targets = torch.tensor(rng.standard_normal((16, 1)), dtype=torch.float32)

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 6), nn.ReLU(), nn.Linear(6, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.9)
criterion = nn.MSELoss()
for epoch in range(6):
    adjust_learning_rate(optimizer, epoch)
    optimizer.zero_grad()
    loss = criterion(model(inputs), targets)
    loss.backward()
    optimizer.step()
    print("epoch", epoch, "loss", loss.item(), "lr", optimizer.param_groups[0]["lr"])
