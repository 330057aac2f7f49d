"""A NativeScaler-style loss scaler asked for a higher-order backward (`create_graph=True`), as a
second-order optimizer needs: gradient values do not carry the graph, so the call and the scaler
are reported and left as they are."""

import numpy as np
import mindspore
from mindspore import nn
from mindspore.experimental import optim


class LossScaler:
    def __init__(self):
        import torch
        # torch2ms: TM204 kept as torch's GradScaler: the training step that uses it is left unconverted
        self._scaler = torch.amp.GradScaler("cpu", init_scale=128.0)

    def __call__(self, loss, optimizer, clip_grad=None, parameters=None, create_graph=False):
        import torch
        # torch2ms: TM928 `LossScaler.__call__` runs backward() on the loss it receives and is left as it is: its call at line 29 is left unconverted and still passes it a loss
        self._scaler.scale(loss).backward(create_graph=create_graph)
        if clip_grad is not None:
            self._scaler.unscale_(optimizer)
            # torch2ms: TM900 `torch.nn.utils.clip_grad_norm_` is not converted: no certain MindSpore mapping; it still runs on torch
            torch.nn.utils.clip_grad_norm_(parameters, clip_grad)
        self._scaler.step(optimizer)
        self._scaler.update()


def train_one_epoch(model, criterion, batches, optimizer, loss_scaler, max_norm=None):
    model.set_train()
    for samples, targets in batches:
        outputs = model(samples)
        loss = criterion(outputs, targets)
        import torch
        # torch2ms: TM900 `.zero_grad()` is not converted: no certain MindSpore mapping; it still runs on torch
        optimizer.zero_grad()
        # torch2ms: TM928 `LossScaler.__call__` runs a higher-order backward through its loss scaling (`create_graph=True`), which gradient values do not carry; the training step is left unconverted
        loss_scaler(loss, optimizer, clip_grad=max_norm, parameters=model.trainable_params(), create_graph=True)
        print("loss", loss.item())


rng = np.random.default_rng(6)
batches = [
    (mindspore.tensor(rng.standard_normal((4, 3)), dtype=mindspore.float32), mindspore.tensor(rng.standard_normal((4, 2)), dtype=mindspore.float32))
    for _ in range(3)
]
mindspore.set_seed(0)
model = nn.Dense(3, 2)
optimizer = optim.SGD(model.trainable_params(), lr=0.1)
train_one_epoch(model, nn.MSELoss(), batches, optimizer, LossScaler(), max_norm=1.0)
print("final", [p.sum().item() for p in model.trainable_params()])
