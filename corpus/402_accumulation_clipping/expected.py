"""Gradient accumulation (mean reduction, loss / N) with gradient-norm clipping before each step."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim

ACCUMULATION_STEPS = 2
MAX_NORM = 0.5

rng = np.random.default_rng(7)
micro_batches = [
    (mindspore.tensor(rng.standard_normal((4, 6)), dtype=mindspore.float32), mindspore.tensor(rng.integers(0, 3, size=4)))
    for _ in range(6)
]

mindspore.set_seed(0)
model = nn.SequentialCell(nn.Dense(6, 16), nn.Tanh(), nn.Dense(16, 3))
criterion = lambda input, target: ops.cross_entropy(input, target)
optimizer = optim.SGD(model.trainable_params(), lr=0.5, momentum=0.9)

model.set_train()
accum_grads = tuple(ops.zeros_like(p) for p in optimizer.parameters)
def forward_fn(inputs, labels):
    outputs = model(inputs)
    loss = criterion(outputs, labels)
    loss = loss / ACCUMULATION_STEPS
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for i, (inputs, labels) in enumerate(micro_batches):
    loss, grads = grad_fn(inputs, labels)
    accum_grads = tuple(map(ops.add, accum_grads, grads))
    if (i + 1) % ACCUMULATION_STEPS == 0:
        grad_norm = ops.norm(ops.stack([ops.norm(g) for g in accum_grads]))
        accum_grads = tuple(g * ops.clamp(MAX_NORM / (grad_norm + 1e-6), max=1.0) for g in accum_grads)
        optimizer(accum_grads)
        accum_grads = tuple(ops.zeros_like(p) for p in optimizer.parameters)
        print("update", (i + 1) // ACCUMULATION_STEPS, "loss", loss.item() * ACCUMULATION_STEPS)
