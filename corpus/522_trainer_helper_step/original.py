"""A trainer whose train_step computes the loss and hands it to a helper method that zeroes the
gradients, runs backward, clips and steps: the step lives one call away from the forward."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(5, 10)
        self.head = nn.Linear(10, 3)

    def forward(self, x):
        return self.head(F.relu(self.body(x)))


class Trainer:
    def __init__(self, model, optimizer, max_norm=1.0):
        self.model = model
        self.optimizer = optimizer
        self.max_norm = max_norm
        self.steps = 0

    def _optimizer_step(self, loss):
        self.optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.max_norm)
        self.optimizer.step()

    def train_step(self, inputs, targets):
        logits = self.model(inputs)
        loss = F.mse_loss(logits, targets)
        self._optimizer_step(loss)
        self.steps += 1
        return loss.item()

    def fit(self, batches, epochs):
        for epoch in range(epochs):
            total = 0.0
            for inputs, targets in batches:
                total += self.train_step(inputs, targets)
            print("epoch", epoch, "mean loss", total / len(batches))


rng = np.random.default_rng(8)
batches = [
    (torch.tensor(rng.standard_normal((6, 5)), dtype=torch.float32), torch.tensor(rng.standard_normal((6, 3)), dtype=torch.float32))
    for _ in range(4)
]
torch.manual_seed(0)
model = Classifier()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True)
trainer = Trainer(model, optimizer, max_norm=0.3)
trainer.fit(batches, epochs=3)
print("steps", trainer.steps)
