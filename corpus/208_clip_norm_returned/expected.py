"""clip_grad_norm_ whose total norm is logged: torch's exact formula on the gradient values."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim

rng = np.random.default_rng(28)
model = nn.SequentialCell(nn.Dense(5, 8), nn.Tanh(), nn.Dense(8, 2))
for p in model.trainable_params():
    p.copy_(mindspore.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=mindspore.float32))
criterion = nn.MSELoss()
optimizer = optim.SGD(model.trainable_params(), lr=0.1, momentum=0.9)
loader = [
    (mindspore.tensor(rng.standard_normal((4, 5)), dtype=mindspore.float32), mindspore.tensor(rng.standard_normal((4, 2)), dtype=mindspore.float32))
    for _ in range(6)
]

max_norm = 0.3
def forward_fn(data, target):
    loss = criterion(model(data), target)
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for step, (data, target) in enumerate(loader):
    loss, grads = grad_fn(data, target)
    total_norm = ops.norm(ops.stack([ops.norm(g) for g in grads]))
    grads = tuple(g * ops.clamp(max_norm / (total_norm + 1e-6), max=1.0) for g in grads)
    optimizer(grads)
    print("step", step, "loss", loss.item(), "grad norm", total_norm.item())

print("final", [p.sum().item() for p in model.trainable_params()])
