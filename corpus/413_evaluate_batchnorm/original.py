"""Training with BatchNorm (momentum 0.2) then evaluation under no_grad: running statistics matter."""

import numpy as np
import torch
from torch import nn


def evaluate(model, batches):
    model.eval()
    correct = 0
    total_loss = 0.0
    with torch.no_grad():
        for inputs, labels in batches:
            logits = model(inputs)
            total_loss += nn.functional.cross_entropy(logits, labels).item()
            correct += (logits.argmax(1) == labels).sum().item()
    return total_loss / len(batches), correct


rng = np.random.default_rng(15)
train_batches = [
    (torch.tensor(rng.standard_normal((8, 4)) * 3 + 2, dtype=torch.float32), torch.tensor(rng.integers(0, 2, size=8)))
    for _ in range(4)
]
val_batches = train_batches[:2]

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6, momentum=0.2), nn.ReLU(), nn.Linear(6, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.5, weight_decay=1e-4)
for epoch in range(2):
    model.train()
    for inputs, labels in train_batches:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(inputs), labels)
        loss.backward()
        optimizer.step()
    val_loss, correct = evaluate(model, val_batches)
    print("epoch", epoch, "val loss", val_loss, "correct", correct)
print("running mean", model[1].running_mean.numpy())
