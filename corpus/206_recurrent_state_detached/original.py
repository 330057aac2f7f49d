"""Truncated backpropagation through time: the hidden state is carried across iterations and
detached at the start of each step."""

import numpy as np
import torch
import torch.nn as nn


class Cell(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(3, 6)
        self.rec = nn.Linear(6, 6)
        self.out = nn.Linear(6, 1)

    def forward(self, x, hidden):
        hidden = torch.tanh(self.inp(x) + self.rec(hidden))
        return self.out(hidden), hidden


def repackage_hidden(h):
    return h.detach()


rng = np.random.default_rng(26)
model = Cell()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)) * 0.4, dtype=torch.float32))
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
sequence = torch.tensor(rng.standard_normal((6, 2, 3)), dtype=torch.float32)
targets = torch.tensor(rng.standard_normal((6, 2, 1)), dtype=torch.float32)

hidden = torch.zeros(2, 6)
for t in range(6):
    hidden = repackage_hidden(hidden)
    optimizer.zero_grad()
    output, hidden = model(sequence[t], hidden)
    loss = criterion(output, targets[t])
    loss.backward()
    optimizer.step()
    print("t", t, "loss", loss.item())

print("final", [p.sum().item() for p in model.parameters()])
