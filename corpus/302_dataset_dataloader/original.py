"""A map-style Dataset read through a DataLoader, training a small regression model."""

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class Points(Dataset):
    def __init__(self, n, seed):
        rng = np.random.default_rng(seed)
        self.x = rng.standard_normal((n, 3)).astype(np.float32)
        self.y = (self.x @ np.array([[1.0], [-2.0], [0.5]], dtype=np.float32) + 0.3).astype(np.float32)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, index):
        return self.x[index], self.y[index]


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(3, 8)
        self.out = nn.Linear(8, 1)

    def forward(self, x):
        return self.out(torch.tanh(self.hidden(x)))


train_set = Points(20, seed=0)
loader = DataLoader(train_set, batch_size=6, shuffle=False, drop_last=True, num_workers=0, pin_memory=True)
print("batches", len(loader))

torch.manual_seed(0)
model = Regressor()
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
for epoch in range(2):
    total = 0.0
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item()
    print("epoch loss", total)

first_x, first_y = next(iter(loader))
print("first batch", first_x.shape[0], first_y.sum().item())
