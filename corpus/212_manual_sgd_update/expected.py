"""Hand-written SGD through p.grad (word_language_model style), with model.zero_grad()."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim

rng = np.random.default_rng(32)
model = nn.SequentialCell(nn.Dense(5, 8), nn.Tanh(), nn.Dense(8, 2))
for p in model.trainable_params():
    p.copy_(mindspore.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=mindspore.float32))
criterion = nn.MSELoss()
optimizer = optim.SGD(model.trainable_params(), lr=0.1, momentum=0.9)
loader = [
    (mindspore.tensor(rng.standard_normal((4, 5)), dtype=mindspore.float32), mindspore.tensor(rng.standard_normal((4, 2)), dtype=mindspore.float32))
    for _ in range(6)
]

lr = 0.2
def forward_fn(data, target):
    loss = criterion(model(data), target)
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, model.trainable_params())
for step, (data, target) in enumerate(loader):
    loss, grads = grad_fn(data, target)
    for p, grad in zip(model.trainable_params(), grads):
        ops.assign(p, p - lr * grad)
    print("step", step, "loss", loss.item())

print("final", [p.sum().item() for p in model.trainable_params()])
