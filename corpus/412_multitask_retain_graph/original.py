"""Two task losses on a shared trunk, each with its own backward; the first keeps the graph."""

import numpy as np
import torch
import torch.nn as nn


class MultiTaskNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Linear(4, 8)
        self.regression_head = nn.Linear(8, 1)
        self.classification_head = nn.Linear(8, 3)

    def forward(self, x):
        shared = torch.relu(self.trunk(x))
        return self.regression_head(shared), self.classification_head(shared)


rng = np.random.default_rng(14)
x = torch.tensor(rng.standard_normal((10, 4)), dtype=torch.float32)
y_reg = torch.tensor(rng.standard_normal((10, 1)), dtype=torch.float32)
y_cls = torch.tensor(rng.integers(0, 3, size=10), dtype=torch.int64)

torch.manual_seed(0)
net = MultiTaskNet()
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
for step in range(3):
    optimizer.zero_grad()
    pred_reg, pred_cls = net(x)
    loss_reg = nn.functional.mse_loss(pred_reg, y_reg)
    loss_cls = nn.functional.cross_entropy(pred_cls, y_cls)
    loss_reg.backward(retain_graph=True)
    loss_cls.backward()
    optimizer.step()
    print("step", step, "regression", loss_reg.item(), "classification", loss_cls.item())
