"""A script with an optional torch-ecosystem import and a guarded .cuda() move, run on the CPU; the conversion keeps the import's fallback."""

import numpy as np
import torch
import torch.nn as nn

try:
    import torchvision
except ImportError:
    torchvision = None

rng = np.random.default_rng(28)
images = torch.tensor(rng.standard_normal((6, 1, 4, 4)), dtype=torch.float32)
labels = torch.tensor(rng.integers(0, 2, size=6), dtype=torch.int64)

torch.manual_seed(0)
model = nn.Sequential(nn.Flatten(), nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 2))
if torch.cuda.is_available():
    model.cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(images), labels)
    loss.backward()
    optimizer.step()
    print("step", step, "loss", loss.item())
print("torchvision", "missing" if torchvision is None else "found")
