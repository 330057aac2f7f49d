"""A training epoch in the style of timm's train.py: local `_forward()` and `_backward(_loss)`
closures, gradient accumulation through `need_update`, clipping before the step."""

from contextlib import suppress

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim


def train_one_epoch(epoch, model, loader, optimizer, loss_fn, accum_steps=2, clip_grad=0.5, amp_autocast=suppress):
    model.set_train()
    last_accum_steps = len(loader) % accum_steps
    updates_per_epoch = (len(loader) + accum_steps - 1) // accum_steps
    num_updates = epoch * updates_per_epoch
    last_batch_idx = len(loader) - 1
    last_batch_idx_to_accum = len(loader) - last_accum_steps
    accum_grads = tuple(ops.zeros_like(p) for p in optimizer.parameters)
    update_sample_count = 0
    def forward_fn():
        loss = _forward()
        return loss
    grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
    for batch_idx, (input, target) in enumerate(loader):
        last_batch = batch_idx == last_batch_idx
        need_update = last_batch or (batch_idx + 1) % accum_steps == 0
        update_idx = batch_idx // accum_steps
        if batch_idx >= last_batch_idx_to_accum:
            accum_steps = last_accum_steps

        def _forward():
            with amp_autocast():
                output = model(input)
                loss = loss_fn(output, target)
            if accum_steps > 1:
                loss /= accum_steps
            return loss

        def _backward(grads):
            if need_update:
                if clip_grad is not None:
                    grad_norm = ops.norm(ops.stack([ops.norm(g) for g in grads]))
                    grads = tuple(g * ops.clamp(clip_grad / (grad_norm + 1e-6), max=1.0) for g in grads)
                optimizer(grads)
            return grads

        loss, grads_1 = grad_fn()
        accum_grads = tuple(map(ops.add, accum_grads, grads_1))
        accum_grads = _backward(accum_grads)
        update_sample_count += input.shape[0]

        if not need_update:
            continue

        num_updates += 1
        accum_grads = tuple(ops.zeros_like(p) for p in optimizer.parameters)
        print("epoch", epoch, "update", update_idx, "loss", loss.item() * accum_steps, "samples", update_sample_count)
        update_sample_count = 0
    return num_updates


rng = np.random.default_rng(4)
loader = [
    (mindspore.tensor(rng.standard_normal((4, 6)), dtype=mindspore.float32), mindspore.tensor(rng.standard_normal((4, 2)), dtype=mindspore.float32))
    for _ in range(5)
]
mindspore.set_seed(0)
model = nn.SequentialCell(nn.Dense(6, 12), nn.Tanh(), nn.Dense(12, 2))
optimizer = optim.SGD(model.trainable_params(), lr=0.1, momentum=0.9)
loss_fn = nn.MSELoss()
for epoch in range(2):
    updates = train_one_epoch(epoch, model, loader, optimizer, loss_fn)
    print("updates", updates)
print("final", [p.sum().item() for p in model.trainable_params()])
