"""Loss scaling with GradScaler: scale(loss).backward(), unscale_ before clipping, step, update."""

import numpy as np
import mindspore
from mindspore import amp, nn, ops
from mindspore.experimental import optim

rng = np.random.default_rng(5)
inputs = mindspore.tensor(rng.standard_normal((16, 4)), dtype=mindspore.float32)
targets = mindspore.tensor(rng.standard_normal((16, 2)), dtype=mindspore.float32)

mindspore.set_seed(0)
model = nn.SequentialCell(nn.Dense(4, 8), nn.GELU(approximate=False), nn.Dense(8, 2))
optimizer = optim.SGD(model.trainable_params(), lr=0.1)
scaler = amp.DynamicLossScaler(scale_value=1024, scale_factor=2, scale_window=2000)
loss_fn = nn.SmoothL1Loss(reduction='mean')

def forward_fn(start):
    batch, target = inputs[start : start + 8], targets[start : start + 8]
    loss = loss_fn(model(batch), target)
    return scaler.scale(loss), loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)
for epoch in range(3):
    for start in range(0, 16, 8):
        (_, loss), grads = grad_fn(start)
        grads = scaler.unscale(grads)
        grads = ops.clip_by_value(grads, -1.0, 1.0)
        grads_finite = amp.all_finite(grads)
        if grads_finite:
            optimizer(grads)
        scaler.adjust(grads_finite)
    print("epoch", epoch, "loss", loss.item(), "scale", float(scaler.scale_value))
