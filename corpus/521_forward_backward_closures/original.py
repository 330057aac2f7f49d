"""A training epoch in the style of timm's train.py: local `_forward()` and `_backward(_loss)`
closures, gradient accumulation through `need_update`, clipping before the step."""

from contextlib import suppress

import numpy as np
import torch
import torch.nn as nn


def train_one_epoch(epoch, model, loader, optimizer, loss_fn, accum_steps=2, clip_grad=0.5, amp_autocast=suppress):
    model.train()
    last_accum_steps = len(loader) % accum_steps
    updates_per_epoch = (len(loader) + accum_steps - 1) // accum_steps
    num_updates = epoch * updates_per_epoch
    last_batch_idx = len(loader) - 1
    last_batch_idx_to_accum = len(loader) - last_accum_steps

    optimizer.zero_grad()
    update_sample_count = 0
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

        def _backward(_loss):
            _loss.backward()
            if need_update:
                if clip_grad is not None:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), clip_grad)
                optimizer.step()

        loss = _forward()
        _backward(loss)
        update_sample_count += input.size(0)

        if not need_update:
            continue

        num_updates += 1
        optimizer.zero_grad()
        print("epoch", epoch, "update", update_idx, "loss", loss.item() * accum_steps, "samples", update_sample_count)
        update_sample_count = 0
    return num_updates


rng = np.random.default_rng(4)
loader = [
    (torch.tensor(rng.standard_normal((4, 6)), dtype=torch.float32), torch.tensor(rng.standard_normal((4, 2)), dtype=torch.float32))
    for _ in range(5)
]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 12), nn.Tanh(), nn.Linear(12, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
loss_fn = nn.MSELoss()
for epoch in range(2):
    updates = train_one_epoch(epoch, model, loader, optimizer, loss_fn)
    print("updates", updates)
print("final", [p.sum().item() for p in model.parameters()])
