"""A classifier trainer whose `_run_batch(train)` also counts correct predictions from the logits of
the shared forward, on the training paths (GradScaler with unscale_ and clip_grad_value_, or plain)
and on the evaluation path alike."""

import numpy as np
import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self, features, classes):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(features, 10), nn.ReLU(), nn.Linear(10, classes))

    def forward(self, x):
        return self.body(x)


class Trainer:
    def __init__(self, model, optimizer, use_amp=False, clip_value=0.5):
        self.model = model
        self.optimizer = optimizer
        self.criterion = nn.CrossEntropyLoss()
        self.use_amp = use_amp
        self.clip_value = clip_value
        self.scaler = torch.amp.GradScaler("cpu", init_scale=4.0, growth_interval=1)

    def _run_batch(self, inputs, labels, train=True):
        with torch.set_grad_enabled(train):
            logits = self.model(inputs)
            loss = self.criterion(logits, labels)
        if train:
            self.optimizer.zero_grad()
            if self.use_amp:
                self.scaler.scale(loss).backward()
                self.scaler.unscale_(self.optimizer)
                nn.utils.clip_grad_value_(self.model.parameters(), self.clip_value)
                self.scaler.step(self.optimizer)
                self.scaler.update()
            else:
                loss.backward()
                nn.utils.clip_grad_value_(self.model.parameters(), self.clip_value)
                self.optimizer.step()
        correct = (logits.argmax(dim=1) == labels).sum().item()
        return loss.item(), correct


rng = np.random.default_rng(23)
inputs = torch.tensor(rng.standard_normal((24, 5)), dtype=torch.float32)
labels = torch.tensor(rng.integers(0, 3, size=24), dtype=torch.int64)

for use_amp in (True, False):
    torch.manual_seed(0)
    model = Classifier(5, 3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.9)
    trainer = Trainer(model, optimizer, use_amp=use_amp)
    for epoch in range(3):
        for start in range(0, 16, 8):
            loss, correct = trainer._run_batch(inputs[start : start + 8], labels[start : start + 8])
            print("amp" if use_amp else "plain", "train", epoch, "loss", loss, "correct", correct)
        loss, correct = trainer._run_batch(inputs[16:], labels[16:], train=False)
        print("amp" if use_amp else "plain", "eval", epoch, "loss", loss, "correct", correct)
    print("scale", trainer.scaler.get_scale())
    print("weights", [p.sum().item() for p in model.parameters()])
