"""Trains two models through the package: a scaler object with accumulation, and a trainer."""

import numpy as np
import torch
from torch import nn
from trainkit.engine import train_one_epoch
from trainkit.scaling import ScaledStep
from trainkit.trainer import Trainer

rng = np.random.default_rng(3)
batches = [
    (
        torch.tensor(rng.standard_normal((8, 5)), dtype=torch.float32),
        torch.tensor(rng.standard_normal((8, 3)), dtype=torch.float32),
    )
    for _ in range(6)
]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 3))
criterion = nn.SmoothL1Loss()
optimizer = torch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.05)
loss_scaler = ScaledStep()
for epoch in range(2):
    train_one_epoch(
        model, criterion, batches, optimizer, loss_scaler, epoch, max_norm=0.05
    )
    print("scale", loss_scaler.current_scale())
print("scaled model", [p.sum().item() for p in model.parameters()])

head = nn.Linear(5, 3)
trainer = Trainer(head, torch.optim.SGD(head.parameters(), lr=0.05, momentum=0.9))
for epoch in range(3):
    print("trainer loss", [trainer.train_step(x, y) for x, y in batches])
print("trainer model", [p.sum().item() for p in head.parameters()])
