"""A NativeScaler-style loss scaler called with `create_graph=is_second_order`, as DeiT's engine does
for second-order optimizers: the step is rewritten for a first-order optimizer, and the converted
call raises where the flag is true (a higher-order backward through the scaler has no
gradient-value form)."""

import numpy as np
import torch
import torch.nn as nn


class LossScaler:
    def __init__(self):
        self._scaler = torch.amp.GradScaler("cpu", init_scale=128.0)

    def __call__(self, loss, optimizer, clip_grad=None, parameters=None, create_graph=False):
        self._scaler.scale(loss).backward(create_graph=create_graph)
        if clip_grad is not None:
            self._scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(parameters, clip_grad)
        self._scaler.step(optimizer)
        self._scaler.update()


def train_one_epoch(model, criterion, batches, optimizer, loss_scaler, max_norm=None):
    model.train()
    for samples, targets in batches:
        outputs = model(samples)
        loss = criterion(outputs, targets)
        optimizer.zero_grad()
        is_second_order = hasattr(optimizer, "is_second_order") and optimizer.is_second_order
        loss_scaler(loss, optimizer, clip_grad=max_norm, parameters=model.parameters(), create_graph=is_second_order)
        print("loss", loss.item())


rng = np.random.default_rng(6)
batches = [
    (torch.tensor(rng.standard_normal((4, 3)), dtype=torch.float32), torch.tensor(rng.standard_normal((4, 2)), dtype=torch.float32))
    for _ in range(3)
]
torch.manual_seed(0)
model = nn.Linear(3, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_scaler = LossScaler()
train_one_epoch(model, nn.MSELoss(), batches, optimizer, loss_scaler, max_norm=1.0)
print("final", [p.sum().item() for p in model.parameters()])
