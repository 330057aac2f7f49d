"""Trains through the package: the loss value is read and the outputs logged before the loss
scaler runs the backward, with accumulation over two batches, with and without clipping."""

import numpy as np
import mindspore
from mindspore import nn
from mindspore.experimental import optim
from readkit.engine import train_one_epoch
from readkit.scaling import ScalerWithClip

rng = np.random.default_rng(5)
batches = [
    (
        mindspore.tensor(rng.standard_normal((8, 6)), dtype=mindspore.float32),
        mindspore.tensor(rng.standard_normal((8, 2)), dtype=mindspore.float32),
    )
    for _ in range(6)
]
mindspore.set_seed(0)
model = nn.SequentialCell(nn.Dense(6, 12), nn.Tanh(), nn.Dense(12, 2))
criterion = nn.MSELoss()
optimizer = optim.AdamW(model.trainable_params(), lr=0.01, weight_decay=0.05)
loss_scaler = ScalerWithClip()
for epoch in range(2):
    train_one_epoch(model, criterion, batches, optimizer, loss_scaler, epoch)
    print("scale", loss_scaler.current_scale())
train_one_epoch(model, criterion, batches, optimizer, loss_scaler, 2, clip=0.5)
print("final model", [p.sum().item() for p in model.trainable_params()])
