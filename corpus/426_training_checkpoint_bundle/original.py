"""A checkpoint that bundles model, optimizer and epoch; weights re-initialised through .data."""

import numpy as np
import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 6)
        self.bn = nn.BatchNorm1d(6)
        self.out = nn.Linear(6, 2)

    def forward(self, x):
        return self.out(torch.relu(self.bn(self.fc(x))))


rng = np.random.default_rng(27)
x = torch.tensor(rng.standard_normal((8, 4)), dtype=torch.float32)
y = torch.tensor(rng.integers(0, 2, size=8), dtype=torch.int64)

torch.manual_seed(0)
model = Classifier()
model.out.weight.data = torch.tensor(rng.standard_normal((2, 6)) * 0.1, dtype=torch.float32)
model.out.bias.data = torch.zeros(2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for epoch in range(2):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    print("epoch", epoch, "loss", loss.item())

for name, param in model.named_parameters():
    print("param", name, param.detach().abs().sum().item())
torch.save({"epoch": 2, "model_state_dict": model.state_dict(), "optimizer_state_dict": optimizer.state_dict()}, "checkpoint.tar")
checkpoint = torch.load("checkpoint.tar")
print("resumed epoch", checkpoint["epoch"])
