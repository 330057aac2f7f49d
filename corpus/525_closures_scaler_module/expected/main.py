"""Trains through the package: the scaler is built here and called inside the epoch's closures."""

import numpy as np
import mindspore
from mindspore import nn
from mindspore.experimental import optim

from trainlib.amp import ScalerStep
from trainlib.loop import train_one_epoch

rng = np.random.default_rng(5)
loader = [
    (mindspore.tensor(rng.standard_normal((4, 6)), dtype=mindspore.float32), mindspore.tensor(rng.standard_normal((4, 2)), dtype=mindspore.float32))
    for _ in range(5)
]
mindspore.set_seed(0)
model = nn.SequentialCell(nn.Dense(6, 12), nn.Tanh(), nn.Dense(12, 2))
optimizer = optim.SGD(model.trainable_params(), lr=0.1, momentum=0.9)
loss_fn = nn.MSELoss()
loss_scaler = ScalerStep()
for epoch in range(3):
    updates = train_one_epoch(epoch, model, loader, optimizer, loss_fn, loss_scaler=loss_scaler)
    print("updates", updates, "scale", loss_scaler.scale())
print("final", [p.sum().item() for p in model.trainable_params()])
