import numpy as np
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(3, 4)
        self.norm = nn.BatchNorm1d(4)
        self.embed = nn.Embedding(5, 4)
        self.out = nn.Linear(4, 1)

    def forward(self, x, ids):
        return self.out(torch.relu(self.norm(self.hidden(x)) + self.embed(ids)))


rng = np.random.default_rng(0)
x = torch.tensor(rng.standard_normal((6, 3)), dtype=torch.float32)
ids = torch.tensor(rng.integers(0, 5, size=6))
y = torch.tensor(rng.standard_normal((6, 1)), dtype=torch.float32)
net = Net()
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
for step in range(3):
    optimizer.zero_grad()
    loss = ((net(x, ids) - y) ** 2).mean()
    loss.backward()
    optimizer.step()
    print("step", step, "loss", loss.item())
