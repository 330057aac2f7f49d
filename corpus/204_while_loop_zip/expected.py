"""A while loop over an iterator of zipped inputs and targets."""

import numpy as np
import mindspore
from mindspore import nn
from mindspore.experimental import optim

rng = np.random.default_rng(24)
model = nn.SequentialCell(nn.Dense(5, 8), nn.Tanh(), nn.Dense(8, 2))
for p in model.trainable_params():
    p.copy_(mindspore.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=mindspore.float32))
criterion = nn.MSELoss()
optimizer = optim.SGD(model.trainable_params(), lr=0.1, momentum=0.9)
loader = [
    (mindspore.tensor(rng.standard_normal((4, 5)), dtype=mindspore.float32), mindspore.tensor(rng.standard_normal((4, 2)), dtype=mindspore.float32))
    for _ in range(6)
]

inputs = [x for x, _ in loader]
targets = [y for _, y in loader]
batches = iter(zip(inputs, targets))
step = 0
def forward_fn(data, target):
    loss = criterion(model(data), target)
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
while step < 5:
    data, target = next(batches)
    loss, grads = grad_fn(data, target)
    optimizer(grads)
    print("step", step, "loss", loss.item())
    step += 1

print("final", [p.sum().item() for p in model.trainable_params()])
