"""A loss-scaler object in the style of the vision trainers: its __call__ scales the loss, runs
backward, and when update_grad is set unscales, clips, steps and updates the scale."""

import numpy as np
import torch
import torch.nn as nn


class ScaledStep:
    state_dict_key = "amp_scaler"

    def __init__(self):
        self._scaler = torch.amp.GradScaler("cpu", init_scale=256.0, growth_interval=3)

    def __call__(self, loss, optimizer, clip_grad=None, parameters=None, update_grad=True):
        self._scaler.scale(loss).backward()
        if update_grad:
            if clip_grad is not None:
                self._scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(parameters, clip_grad)
            self._scaler.step(optimizer)
            self._scaler.update()


def train_one_epoch(model, criterion, batches, optimizer, loss_scaler, epoch, max_norm=1.0, accum_iter=2):
    model.train()
    optimizer.zero_grad()
    for data_iter_step, (samples, targets) in enumerate(batches):
        outputs = model(samples)
        loss = criterion(outputs, targets)
        loss_value = loss.item()
        loss = loss / accum_iter
        loss_scaler(loss, optimizer, clip_grad=max_norm, parameters=model.parameters(),
                    update_grad=(data_iter_step + 1) % accum_iter == 0)
        if (data_iter_step + 1) % accum_iter == 0:
            optimizer.zero_grad()
        print("epoch", epoch, "step", data_iter_step, "loss", loss_value)


rng = np.random.default_rng(3)
batches = [
    (torch.tensor(rng.standard_normal((8, 5)), dtype=torch.float32), torch.tensor(rng.standard_normal((8, 3)), dtype=torch.float32))
    for _ in range(6)
]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 3))
criterion = nn.SmoothL1Loss()
optimizer = torch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.05)
loss_scaler = ScaledStep()
for epoch in range(2):
    train_one_epoch(model, criterion, batches, optimizer, loss_scaler, epoch, max_norm=0.05)
print("scale", loss_scaler._scaler.get_scale())
