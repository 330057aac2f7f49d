"""Fine-tuning with frozen BatchNorm statistics: the model overrides train() to keep BN in eval mode."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Finetune(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Linear(5, 6)
        self.bn = nn.BatchNorm1d(6)
        self.head = nn.Linear(6, 2)

    def train(self, mode=True):
        super().train(mode)
        self.bn.eval()
        return self

    def forward(self, x):
        return self.head(F.relu(self.bn(self.stem(x))))


torch.manual_seed(0)
rng = np.random.default_rng(7)
inputs = torch.tensor(rng.standard_normal((10, 5)), dtype=torch.float32)
targets = torch.tensor(rng.standard_normal((10, 2)), dtype=torch.float32)

model = Finetune()
model.train()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    optimizer.zero_grad()
    loss = F.mse_loss(model(inputs), targets)
    loss.backward()
    optimizer.step()
    print("loss", loss.item())

print("statistics untouched", model.bn.running_mean.tolist(), model.bn.running_var.tolist())
print("bn training", float(model.bn.training), "model training", float(model.training))
