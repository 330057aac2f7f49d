"""A model built from ModuleList and ModuleDict, with a residual loop and a named output head."""

import numpy as np
import torch
from torch import nn


class ResidualMLP(nn.Module):
    def __init__(self, width, depth, heads):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Sequential(nn.Linear(width, width), nn.ReLU()) for _ in range(depth)])
        self.heads = nn.ModuleDict({name: nn.Linear(width, size) for name, size in heads.items()})

    def forward(self, x, head):
        for block in self.blocks:
            x = x + block(x)
        return self.heads[head](x)


rng = np.random.default_rng(17)
x = torch.tensor(rng.standard_normal((6, 4)), dtype=torch.float32)
target = torch.tensor(rng.standard_normal((6, 2)), dtype=torch.float32)

torch.manual_seed(0)
model = ResidualMLP(4, depth=3, heads={"score": 2, "aux": 1})
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for step in range(3):
    optimizer.zero_grad()
    loss = ((model(x, "score") - target) ** 2).mean()
    loss.backward()
    optimizer.step()
    print("step", step, "loss", loss.item())
print("aux head", model(x, "aux").detach().numpy().ravel())
