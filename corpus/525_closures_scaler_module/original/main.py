"""Trains through the package: the scaler is built here and called inside the epoch's closures."""

import numpy as np
import torch
from torch import nn

from trainlib.amp import ScalerStep
from trainlib.loop import train_one_epoch

rng = np.random.default_rng(5)
loader = [
    (torch.tensor(rng.standard_normal((4, 6)), dtype=torch.float32), torch.tensor(rng.standard_normal((4, 2)), dtype=torch.float32))
    for _ in range(5)
]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 12), nn.Tanh(), nn.Linear(12, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
loss_fn = nn.MSELoss()
loss_scaler = ScalerStep()
for epoch in range(3):
    updates = train_one_epoch(epoch, model, loader, optimizer, loss_fn, loss_scaler=loss_scaler)
    print("updates", updates, "scale", loss_scaler.scale())
print("final", [p.sum().item() for p in model.parameters()])
