"""Inference helpers decorated with @torch.no_grad() and @torch.inference_mode(), after training."""

import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(22)
train_x = torch.tensor(rng.standard_normal((10, 2)), dtype=torch.float32)
train_y = torch.tensor(rng.integers(0, 2, size=(10, 1)), dtype=torch.float32)

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
criterion = nn.BCEWithLogitsLoss()


@torch.no_grad()
def predict_proba(model, x):
    return torch.sigmoid(model(x))


@torch.inference_mode()
def accuracy(model, x, y):
    predictions = (model(x) > 0).float()
    return (predictions == y).float().mean().item()


for step in range(5):
    optimizer.zero_grad()
    loss = criterion(model(train_x), train_y)
    loss.backward()
    optimizer.step()
print("probabilities", predict_proba(model, train_x[:3]).numpy().ravel())
print("accuracy", accuracy(model, train_x, train_y))
