"""Trains through the package: the scaler returns the gradient norm, measured by a function of
the package that reads the parameters' gradients (no clipping) or by the clipping itself."""

import numpy as np
import torch
from normkit.engine import train_one_epoch
from normkit.misc import ScalerWithNorm
from torch import nn

rng = np.random.default_rng(9)
batches = [
    (
        torch.tensor(rng.standard_normal((8, 6)), dtype=torch.float32),
        torch.tensor(rng.standard_normal((8, 2)), dtype=torch.float32),
    )
    for _ in range(6)
]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 12), nn.Tanh(), nn.Linear(12, 2))
criterion = nn.MSELoss()
optimizer = torch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.05)
loss_scaler = ScalerWithNorm()
for epoch in range(2):
    train_one_epoch(model, criterion, batches, optimizer, loss_scaler, epoch)
    print("scale", loss_scaler.current_scale())
train_one_epoch(model, criterion, batches, optimizer, loss_scaler, 2, clip=0.5)
print("final model", [p.sum().item() for p in model.parameters()])
