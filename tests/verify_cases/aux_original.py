import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(1)
x = torch.tensor(rng.standard_normal((8, 3)), dtype=torch.float32)
y = torch.tensor(rng.standard_normal((8, 2)), dtype=torch.float32)
model = nn.Linear(3, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.MSELoss()
for step in range(3):
    output = model(x)
    loss = criterion(output, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print("step", step, "loss", loss.item(), "mean output", output.mean().item())
