"""torch.cuda.amp.GradScaler on a machine without CUDA: torch disables it (scale 1, never skips); the converted
loss scaler scales by 2**16 and unscales, which is exact, so the losses and parameters agree."""

import numpy as np
import mindspore
from mindspore import amp, nn, ops
from mindspore.experimental import optim

rng = np.random.default_rng(29)
model = nn.SequentialCell(nn.Dense(5, 8), nn.Tanh(), nn.Dense(8, 2))
for p in model.trainable_params():
    p.copy_(mindspore.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=mindspore.float32))
criterion = nn.MSELoss()
optimizer = optim.SGD(model.trainable_params(), lr=0.1, momentum=0.9)
loader = [
    (mindspore.tensor(rng.standard_normal((4, 5)), dtype=mindspore.float32), mindspore.tensor(rng.standard_normal((4, 2)), dtype=mindspore.float32))
    for _ in range(6)
]

scaler = amp.DynamicLossScaler(scale_value=2 ** 16, scale_factor=2, scale_window=2000)
def forward_fn(data, target):
    # torch2ms: TM925 CUDA autocast is disabled in torch without CUDA; with --target cpu the forward runs in float32
    output = model(data)
    loss = criterion(output, target)
    return scaler.scale(loss), loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)
for step, (data, target) in enumerate(loader):
    (_, loss), grads = grad_fn(data, target)
    grads = scaler.unscale(grads)
    grads = ops.clip_by_global_norm(grads, 1.0)
    grads_finite = amp.all_finite(grads)
    if grads_finite:
        optimizer(grads)
    scaler.adjust(grads_finite)
    print("step", step, "loss", loss.item())

print("final", [p.sum().item() for p in model.trainable_params()])
