"""A Dataset subclass fed through a DataLoader (no shuffling) to a regression training loop."""

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class PointsDataset(Dataset):
    def __init__(self, n, seed):
        rng = np.random.default_rng(seed)
        self.x = rng.standard_normal((n, 3)).astype(np.float32)
        self.y = (self.x @ np.array([[1.0], [-2.0], [0.5]], dtype=np.float32) + 0.3).astype(np.float32)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, index):
        return self.x[index], self.y[index]


loader = DataLoader(PointsDataset(24, seed=18), batch_size=8, shuffle=False)
torch.manual_seed(0)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.MSELoss()
for epoch in range(3):
    epoch_loss = 0.0
    for x, y in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item()
    print("epoch", epoch, "loss", epoch_loss / len(loader))
