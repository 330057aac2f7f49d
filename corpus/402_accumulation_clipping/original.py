"""Gradient accumulation (mean reduction, loss / N) with gradient-norm clipping before each step."""

import numpy as np
import torch
import torch.nn as nn

ACCUMULATION_STEPS = 2
MAX_NORM = 0.5

rng = np.random.default_rng(7)
micro_batches = [
    (torch.tensor(rng.standard_normal((4, 6)), dtype=torch.float32), torch.tensor(rng.integers(0, 3, size=4)))
    for _ in range(6)
]

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)

model.train()
optimizer.zero_grad()
for i, (inputs, labels) in enumerate(micro_batches):
    outputs = model(inputs)
    loss = criterion(outputs, labels)
    loss = loss / ACCUMULATION_STEPS
    loss.backward()
    if (i + 1) % ACCUMULATION_STEPS == 0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), MAX_NORM)
        optimizer.step()
        optimizer.zero_grad()
        print("update", (i + 1) // ACCUMULATION_STEPS, "loss", loss.item() * ACCUMULATION_STEPS)
