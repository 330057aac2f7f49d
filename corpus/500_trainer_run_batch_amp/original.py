"""A trainer whose `_run_batch(train)` runs one forward under `set_grad_enabled(train)` and a CUDA
autocast (disabled on this CPU machine), then, when training, either scales the loss with a CPU
GradScaler (clipping the still scaled gradients) or steps plainly; evaluation only reads the loss."""

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class TrainerConfig:
    max_epochs: int = 3
    grad_norm_clip: float = 1.0
    use_amp: bool = False


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(4, 8)
        self.out = nn.Linear(8, 2)

    def forward(self, x, targets=None):
        prediction = self.out(torch.tanh(self.hidden(x)))
        loss = None
        if targets is not None:
            loss = F.mse_loss(prediction, targets)
        return prediction, loss


class Trainer:
    def __init__(self, config, model, optimizer, train_batches, test_batches):
        self.config = config
        self.model = model
        self.optimizer = optimizer
        self.train_batches = train_batches
        self.test_batches = test_batches
        if self.config.use_amp:
            self.scaler = torch.amp.GradScaler("cpu", init_scale=8.0, growth_interval=2)

    def _run_batch(self, source, targets, train=True):
        with torch.set_grad_enabled(train), torch.amp.autocast(device_type="cuda", dtype=torch.float16, enabled=self.config.use_amp):
            _, loss = self.model(source, targets)

        if train:
            self.optimizer.zero_grad(set_to_none=True)
            if self.config.use_amp:
                self.scaler.scale(loss).backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.config.grad_norm_clip)
                self.scaler.step(self.optimizer)
                self.scaler.update()
            else:
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.config.grad_norm_clip)
                self.optimizer.step()

        return loss.item()

    def _run_epoch(self, epoch, batches, train=True):
        step_type = "train" if train else "eval"
        for source, targets in batches:
            batch_loss = self._run_batch(source, targets, train)
            print(step_type, "epoch", epoch, "loss", batch_loss)

    def train(self):
        for epoch in range(self.config.max_epochs):
            self._run_epoch(epoch, self.train_batches, train=True)
            self._run_epoch(epoch, self.test_batches, train=False)


rng = np.random.default_rng(11)


def make_batches(count):
    return [
        (
            torch.tensor(rng.standard_normal((6, 4)), dtype=torch.float32),
            torch.tensor(rng.standard_normal((6, 2)) * 2.0, dtype=torch.float32),
        )
        for _ in range(count)
    ]


train_batches, test_batches = make_batches(4), make_batches(2)

torch.manual_seed(0)
model = Regressor()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
trainer = Trainer(TrainerConfig(use_amp=True), model, optimizer, train_batches, test_batches)
trainer.train()
print("scale", trainer.scaler.get_scale())

torch.manual_seed(1)
plain_model = Regressor()
plain_optimizer = torch.optim.SGD(plain_model.parameters(), lr=0.1, momentum=0.9)
plain = Trainer(TrainerConfig(use_amp=False, grad_norm_clip=0.5), plain_model, plain_optimizer, train_batches, test_batches)
plain.train()
print("final", [p.sum().item() for p in plain_model.parameters()])
