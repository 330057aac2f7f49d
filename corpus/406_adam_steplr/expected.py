"""Adam with weight decay and a StepLR schedule stepped once per epoch; the lr is logged."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim

rng = np.random.default_rng(6)
features = mindspore.tensor(rng.standard_normal((32, 5)), dtype=mindspore.float32)
labels = mindspore.tensor(rng.integers(0, 2, size=32), dtype=mindspore.int64)

mindspore.set_seed(0)
model = nn.SequentialCell(nn.Dense(5, 8), nn.ReLU(), nn.Dense(8, 2))
optimizer = optim.Adam(model.trainable_params(), lr=0.05, weight_decay=1e-3)
scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
criterion = lambda input, target: ops.cross_entropy(input, target)


def train_one_epoch(epoch):
    model.set_train()
    total = 0.0
    def forward_fn(start):
        loss = criterion(model(features[start : start + 16]), labels[start : start + 16])
        return loss
    grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
    for start in range(0, 32, 16):
        loss, grads = grad_fn(start)
        optimizer(grads)
        total += loss.item()
    return total / 2


for epoch in range(4):
    mean_loss = train_one_epoch(epoch)
    scheduler.step()
    print("epoch", epoch, "loss", mean_loss, "lr", float(optimizer.param_groups[0]["lr"]))
