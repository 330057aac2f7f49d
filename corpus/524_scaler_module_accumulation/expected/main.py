"""Trains two models through the package: a scaler object with accumulation, and a trainer."""

import numpy as np
import mindspore
from mindspore import nn
from mindspore.experimental import optim
from trainkit.engine import train_one_epoch
from trainkit.scaling import ScaledStep
from trainkit.trainer import Trainer

rng = np.random.default_rng(3)
batches = [
    (
        mindspore.tensor(rng.standard_normal((8, 5)), dtype=mindspore.float32),
        mindspore.tensor(rng.standard_normal((8, 3)), dtype=mindspore.float32),
    )
    for _ in range(6)
]
mindspore.set_seed(0)
model = nn.SequentialCell(nn.Dense(5, 16), nn.Tanh(), nn.Dense(16, 3))
criterion = nn.SmoothL1Loss(reduction='mean')
optimizer = optim.AdamW(model.trainable_params(), lr=0.01, weight_decay=0.05)
loss_scaler = ScaledStep()
for epoch in range(2):
    train_one_epoch(
        model, criterion, batches, optimizer, loss_scaler, epoch, max_norm=0.05
    )
    print("scale", loss_scaler.current_scale())
print("scaled model", [p.sum().item() for p in model.trainable_params()])

head = nn.Dense(5, 3)
trainer = Trainer(head, optim.SGD(head.trainable_params(), lr=0.05, momentum=0.9))
for epoch in range(3):
    print("trainer loss", [trainer.train_step(x, y) for x, y in batches])
print("trainer model", [p.sum().item() for p in head.trainable_params()])
