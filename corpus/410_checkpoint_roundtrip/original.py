"""Train briefly, save the state_dict, load it into a fresh model and evaluate both."""

import numpy as np
import torch
from torch import nn


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(3, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 2))

    def forward(self, x):
        return self.layers(x)


rng = np.random.default_rng(12)
data = torch.tensor(rng.standard_normal((10, 3)), dtype=torch.float32)
target = torch.tensor(rng.standard_normal((10, 2)), dtype=torch.float32)

torch.manual_seed(0)
model = MLP()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(data), target)
    loss.backward()
    optimizer.step()

torch.save(model.state_dict(), "mlp.ckpt")
restored = MLP()
restored.load_state_dict(torch.load("mlp.ckpt"))
model.eval()
restored.eval()
with torch.no_grad():
    print("trained", model(data).sum().item())
    print("restored", restored(data).sum().item())
