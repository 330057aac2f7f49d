import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(2)
batches = [
    (
        torch.tensor(rng.standard_normal((4, 3)), dtype=torch.float32),
        torch.tensor(rng.standard_normal((4, 1)), dtype=torch.float32),
    )
    for _ in range(4)
]
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.MSELoss(reduction="mean")
accumulation_steps = 2
for i, (inputs, target) in enumerate(batches):
    loss = criterion(model(inputs), target)
    loss = loss / accumulation_steps
    loss.backward()
    if (i + 1) % accumulation_steps == 0:
        optimizer.step()
        optimizer.zero_grad()
    print("micro-batch", i, "loss", loss.item())
