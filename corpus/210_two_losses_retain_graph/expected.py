"""Two losses on one forward pass, backward(retain_graph=True) then backward(): the gradients add up."""

import numpy as np
import mindspore
from mindspore import nn
from mindspore.experimental import optim

rng = np.random.default_rng(30)
model = nn.SequentialCell(nn.Dense(5, 8), nn.Tanh(), nn.Dense(8, 2))
for p in model.trainable_params():
    p.copy_(mindspore.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=mindspore.float32))
criterion = nn.MSELoss()
optimizer = optim.SGD(model.trainable_params(), lr=0.1, momentum=0.9)
loader = [
    (mindspore.tensor(rng.standard_normal((4, 5)), dtype=mindspore.float32), mindspore.tensor(rng.standard_normal((4, 2)), dtype=mindspore.float32))
    for _ in range(6)
]

l1 = nn.L1Loss()
def forward_fn(data, target):
    output = model(data)
    loss_a = criterion(output, target)
    loss_b = 0.5 * l1(output, target)
    return loss_a + loss_b, loss_a, loss_b
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)
for step, (data, target) in enumerate(loader):
    (_, loss_a, loss_b), grads = grad_fn(data, target)
    optimizer(grads)
    print("step", step, "loss_a", loss_a.item(), "loss_b", loss_b.item())

print("final", [p.sum().item() for p in model.trainable_params()])
