"""DeiT/MAE-style train_one_epoch with timm's NativeScaler made in the same file."""

import math
import sys

import numpy as np
import torch
from timm.utils import NativeScaler
from torch import nn


def train_one_epoch(
    model,
    criterion,
    data_loader,
    optimizer,
    epoch,
    loss_scaler,
    max_norm=0,
    accum_iter=1,
):
    model.train(True)
    optimizer.zero_grad()
    for data_iter_step, (samples, targets) in enumerate(data_loader):
        outputs = model(samples)
        loss = criterion(outputs, targets)
        loss_value = loss.item()
        if not math.isfinite(loss_value):
            print(f"Loss is {loss_value}, stopping training")
            sys.exit(1)
        loss /= accum_iter
        loss_scaler(
            loss,
            optimizer,
            clip_grad=max_norm,
            parameters=model.parameters(),
            need_update=(data_iter_step + 1) % accum_iter == 0,
        )
        if (data_iter_step + 1) % accum_iter == 0:
            optimizer.zero_grad()
        print("epoch", epoch, "step", data_iter_step, "loss", loss_value)


rng = np.random.default_rng(9)
data_loader = [
    (
        torch.tensor(rng.standard_normal((8, 4)), dtype=torch.float32),
        torch.tensor(rng.standard_normal((8, 2)), dtype=torch.float32),
    )
    for _ in range(4)
]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
criterion = nn.MSELoss()
loss_scaler = NativeScaler(device="cpu")
for epoch in range(2):
    train_one_epoch(
        model,
        criterion,
        data_loader,
        optimizer,
        epoch,
        loss_scaler,
        max_norm=0.5,
        accum_iter=2,
    )
print("final", [p.sum().item() for p in model.parameters()])
