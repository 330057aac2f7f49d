"""A small CNN with BatchNorm, trained for a few steps, then evaluated."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvNet(nn.Module):
    def __init__(self, classes=4):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(4, momentum=0.2)
        self.conv2 = nn.Conv2d(4, 6, 3, stride=2)
        self.bn2 = nn.BatchNorm2d(6)
        self.fc = nn.Linear(6 * 3 * 3, classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        x = torch.flatten(x, 1)
        return self.fc(x)


torch.manual_seed(0)
rng = np.random.default_rng(0)
images = torch.tensor(rng.standard_normal((8, 1, 8, 8)), dtype=torch.float32)
labels = torch.tensor(rng.integers(0, 4, size=8), dtype=torch.int64)

model = ConvNet()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for step in range(3):
    optimizer.zero_grad()
    loss = F.cross_entropy(model(images), labels)
    loss.backward()
    optimizer.step()
    print("loss", loss.item())

print("running mean", model.bn1.running_mean.tolist())
print("running var", model.bn2.running_var.tolist())
print("gamma", model.bn1.weight.tolist())

model.eval()
with torch.no_grad():
    logits = model(images)
print("eval logits", logits)

convs = [m for m in model.modules() if isinstance(m, nn.Conv2d)]
print("conv layers", len(convs), "children", len(list(model.children())))
