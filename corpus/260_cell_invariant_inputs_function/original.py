"""--style cell on a train() function: the inputs are its parameters, the same tensors at every
epoch (full-batch training), and the forward is written in two statements."""

import numpy as np
import torch
from torch import nn


def train(model, criterion, optimizer, features, labels, epochs):
    for epoch in range(epochs):
        optimizer.zero_grad()
        predictions = model(features)
        loss = criterion(predictions, labels)
        loss.backward()
        optimizer.step()
        print("epoch", epoch, "loss", loss.item())
    return loss.item()


rng = np.random.default_rng(260)
features = torch.tensor(rng.standard_normal((12, 3)), dtype=torch.float32)
labels = torch.tensor(rng.standard_normal((12, 2)), dtype=torch.float32)
model = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=torch.float32))
criterion = nn.SmoothL1Loss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
final = train(model, criterion, optimizer, features, labels, 5)
print("final loss", final)
print("final", [p.sum().item() for p in model.parameters()])
