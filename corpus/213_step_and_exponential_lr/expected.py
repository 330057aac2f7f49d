"""StepLR and ExponentialLR stepped once per epoch."""

import numpy as np
import mindspore
from mindspore import nn
from mindspore.experimental import optim

rng = np.random.default_rng(33)
model = nn.SequentialCell(nn.Dense(5, 8), nn.Tanh(), nn.Dense(8, 2))
for p in model.trainable_params():
    p.copy_(mindspore.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=mindspore.float32))
criterion = nn.MSELoss()
optimizer = optim.SGD(model.trainable_params(), lr=0.1, momentum=0.9)
loader = [
    (mindspore.tensor(rng.standard_normal((4, 5)), dtype=mindspore.float32), mindspore.tensor(rng.standard_normal((4, 2)), dtype=mindspore.float32))
    for _ in range(6)
]

scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
def forward_fn_optimizer(data, target):
    loss = criterion(model(data), target)
    return loss
grad_fn_optimizer = mindspore.value_and_grad(forward_fn_optimizer, None, optimizer.parameters)
for epoch in range(4):
    for data, target in loader[:3]:
        loss, grads_optimizer = grad_fn_optimizer(data, target)
        optimizer(grads_optimizer)
    scheduler.step()
    print("epoch", epoch, "loss", loss.item(), "lr", scheduler.get_last_lr()[0])
optimizer2 = optim.SGD(model.trainable_params(), lr=0.05)
decay = optim.lr_scheduler.ExponentialLR(optimizer2, gamma=0.7)
def forward_fn_2(data, target):
    loss = criterion(model(data), target)
    return loss
grad_fn_2 = mindspore.value_and_grad(forward_fn_2, None, optimizer2.parameters)
for epoch in range(3):
    for data, target in loader[3:]:
        loss, grads_2 = grad_fn_2(data, target)
        optimizer2(grads_2)
    decay.step()
    print("epoch", epoch, "loss", loss.item(), "lr", decay.get_last_lr()[0])

print("final", [p.sum().item() for p in model.trainable_params()])
