"""Adam with weight decay and a StepLR schedule stepped once per epoch; the lr is logged."""

import numpy as np
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import StepLR

rng = np.random.default_rng(6)
features = torch.tensor(rng.standard_normal((32, 5)), dtype=torch.float32)
labels = torch.tensor(rng.integers(0, 2, size=32), dtype=torch.int64)

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 2))
optimizer = torch.optim.Adam(model.parameters(), lr=0.05, weight_decay=1e-3)
scheduler = StepLR(optimizer, step_size=2, gamma=0.5)
criterion = nn.CrossEntropyLoss()


def train_one_epoch(epoch):
    model.train()
    total = 0.0
    for start in range(0, 32, 16):
        optimizer.zero_grad()
        loss = criterion(model(features[start : start + 16]), labels[start : start + 16])
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / 2


for epoch in range(4):
    mean_loss = train_one_epoch(epoch)
    scheduler.step()
    print("epoch", epoch, "loss", mean_loss, "lr", optimizer.param_groups[0]["lr"])
