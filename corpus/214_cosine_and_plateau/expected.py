"""CosineAnnealingLR per step and ReduceLROnPlateau on the epoch loss."""

import numpy as np
import mindspore
from mindspore import nn
from mindspore.experimental import optim

rng = np.random.default_rng(34)
model = nn.SequentialCell(nn.Dense(5, 8), nn.Tanh(), nn.Dense(8, 2))
for p in model.trainable_params():
    p.copy_(mindspore.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=mindspore.float32))
criterion = nn.MSELoss()
optimizer = optim.SGD(model.trainable_params(), lr=0.1, momentum=0.9)
loader = [
    (mindspore.tensor(rng.standard_normal((4, 5)), dtype=mindspore.float32), mindspore.tensor(rng.standard_normal((4, 2)), dtype=mindspore.float32))
    for _ in range(6)
]

cosine = optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=6, eta_min=0.01)
plateau = optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=0)
def forward_fn(data, target):
    loss = criterion(model(data), target)
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for epoch in range(3):
    total = 0.0
    for data, target in loader:
        loss, grads = grad_fn(data, target)
        optimizer(grads)
        cosine.step()
        total += loss.item()
    plateau.step(total)
    print("epoch", epoch, "loss", total, "lr", float(optimizer.param_groups[0]["lr"]))

print("final", [p.sum().item() for p in model.trainable_params()])
