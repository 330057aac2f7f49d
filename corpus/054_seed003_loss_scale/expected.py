"""Seeds 001/003: loss scaling. torch's GradScaler on the CPU scales the loss, unscales the gradients,
skips the update when they are not finite and adjusts the scale; MindSpore's DynamicLossScaler does the
same on values."""

import numpy as np
import mindspore
from mindspore import amp, nn
from mindspore.experimental import optim

rng = np.random.default_rng(4)
net = nn.SequentialCell(nn.Dense(4, 8), nn.Tanh(), nn.Dense(8, 1))
for p in net.trainable_params():
    p.copy_(mindspore.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=mindspore.float32))
loss_fn = nn.MSELoss()
optimizer = optim.SGD(net.trainable_params(), lr=0.1)
scaler = amp.DynamicLossScaler(scale_value=1024, scale_factor=2, scale_window=2)
batches = [
    (mindspore.tensor(rng.standard_normal((6, 4)), dtype=mindspore.float32), mindspore.tensor(rng.standard_normal((6, 1)), dtype=mindspore.float32))
    for _ in range(5)
]

def forward_fn(x, y):
    loss = loss_fn(net(x), y)
    return scaler.scale(loss), loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)
for step, (x, y) in enumerate(batches):
    (_, loss), grads = grad_fn(x, y)
    grads = scaler.unscale(grads)
    grads_finite = amp.all_finite(grads)
    if grads_finite:
        optimizer(grads)
    scaler.adjust(grads_finite)
    print("step", step, "loss", loss.item(), "scale", float(scaler.scale_value))

print("final", [p.sum().item() for p in net.trainable_params()])
