"""Seed 004's accumulation inside a train() function called once per epoch (the step count divides
the number of micro-batches, so no gradient is left over between calls)."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim


def train(model, criterion, optimizer, train_loader, accumulation_steps, epoch):
    model.set_train()
    def forward_fn(images, target):
        outputs = model(images)
        loss = criterion(outputs, target) / accumulation_steps
        return loss
    grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
    accum_grads = tuple(ops.zeros_like(p) for p in optimizer.parameters)
    for i, (images, target) in enumerate(train_loader):
        loss, grads = grad_fn(images, target)
        # torch2ms: TM202 gradients accumulated after the last optimizer step of a call start from zero at the next call (torch keeps them in `.grad`)
        accum_grads = tuple(map(ops.add, accum_grads, grads))
        if (i + 1) % accumulation_steps == 0:
            optimizer(accum_grads)
            accum_grads = tuple(ops.zeros_like(p) for p in optimizer.parameters)
            print("epoch", epoch, "update", (i + 1) // accumulation_steps, "loss", loss.item())


rng = np.random.default_rng(36)
model = nn.SequentialCell(nn.Dense(4, 6), nn.Tanh(), nn.Dense(6, 2))
for p in model.trainable_params():
    p.copy_(mindspore.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=mindspore.float32))
criterion = nn.MSELoss()
optimizer = optim.Adam(model.trainable_params(), lr=0.01)
loader = [
    (mindspore.tensor(rng.standard_normal((3, 4)), dtype=mindspore.float32), mindspore.tensor(rng.standard_normal((3, 2)), dtype=mindspore.float32))
    for _ in range(6)
]
for epoch in range(2):
    train(model, criterion, optimizer, loader, 3, epoch)

print("final", [p.sum().item() for p in model.trainable_params()])
