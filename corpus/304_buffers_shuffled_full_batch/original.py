"""Running statistics, an optional buffer, and a shuffled full-batch DataLoader (order-free loss)."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

VERBOSE = False


class Samples(Dataset):
    def __init__(self):
        rng = np.random.default_rng(3)
        self.x = rng.standard_normal((12, 4)).astype(np.float32)
        self.y = rng.integers(0, 3, size=12)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


class Normalised(nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm1d(4, momentum=0.5)
        self.fc = nn.Linear(4, 3)
        self.register_buffer("cache", None)

    def forward(self, x):
        return self.fc(self.bn(x))


def describe(model):
    return int(model.bn.num_batches_tracked)


def train_epoch(model, loader, optimizer):
    for x, y in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
    return loss.item()


torch.manual_seed(0)
dataset = Samples()
loader = DataLoader(dataset, batch_size=len(dataset), shuffle=True)
model = Normalised()
optimizer = torch.optim.SGD(model.parameters(), lr=0.3)
for epoch in range(3):
    print("loss", train_epoch(model, loader, optimizer))
    if VERBOSE:
        print("batches", describe(model))

print("moving mean", model.bn.running_mean.tolist())
print("moving var", model.bn.running_var.tolist())
