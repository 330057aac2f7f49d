"""--style cell on a loop that reads the model's output after the step (accuracy): a training cell
returns only the loss, so the functional form stays, with a note that says why."""

import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(263)
model = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 3))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=torch.float32))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.2)
batches = [
    (torch.tensor(rng.standard_normal((10, 5)), dtype=torch.float32), torch.tensor(rng.integers(0, 3, 10), dtype=torch.int64))
    for _ in range(4)
]
for epoch in range(2):
    correct = 0
    for data, target in batches:
        optimizer.zero_grad()
        output = model(data)
        loss = criterion(output, target)
        loss.backward()
        optimizer.step()
        correct += (output.argmax(1) == target).sum().item()
    print("epoch", epoch, "loss", loss.item(), "correct", correct)
print("final", [p.sum().item() for p in model.parameters()])
