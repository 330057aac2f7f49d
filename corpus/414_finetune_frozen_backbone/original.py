"""Fine-tuning: the backbone is frozen with requires_grad = False, only the head is optimised."""

import numpy as np
import torch
import torch.nn as nn


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU())

    def forward(self, x):
        return self.features(x)


class FineTuned(nn.Module):
    def __init__(self, backbone, num_classes):
        super().__init__()
        self.backbone = backbone
        self.head = nn.Linear(8, num_classes)

    def forward(self, x):
        return self.head(self.backbone(x))


rng = np.random.default_rng(16)
inputs = torch.tensor(rng.standard_normal((12, 5)), dtype=torch.float32)
labels = torch.tensor(rng.integers(0, 4, size=12), dtype=torch.int64)

torch.manual_seed(0)
model = FineTuned(Backbone(), num_classes=4)
for param in model.backbone.parameters():
    param.requires_grad = False
optimizer = torch.optim.SGD(filter(lambda p: p.requires_grad, model.parameters()), lr=0.2)
criterion = nn.CrossEntropyLoss()
for step in range(4):
    optimizer.zero_grad()
    loss = criterion(model(inputs), labels)
    loss.backward()
    optimizer.step()
    print("step", step, "loss", loss.item())
