"""The best model kept whole with torch.save(model, f) during training, loaded back with
torch.load at the end and evaluated, as the language-model and super-resolution scripts do."""

import os
import tempfile

import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(21)
data = torch.tensor(rng.standard_normal((16, 4)), dtype=torch.float32)
target = torch.tensor(rng.standard_normal((16, 2)), dtype=torch.float32)
val = torch.tensor(rng.standard_normal((8, 4)), dtype=torch.float32)
val_target = torch.tensor(rng.standard_normal((8, 2)), dtype=torch.float32)


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(4, 8)
        self.out = nn.Linear(8, 2)

    def forward(self, x):
        return self.out(torch.tanh(self.hidden(x)))


def evaluate(model):
    model.eval()
    with torch.no_grad():
        return nn.functional.mse_loss(model(val), val_target).item()


model = Regressor()
optimizer = torch.optim.SGD(model.parameters(), lr=0.3)
save = os.path.join(tempfile.mkdtemp(), "model.pt")
best = None
for epoch in range(6):
    model.train()
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(data), target)
    loss.backward()
    optimizer.step()
    val_loss = evaluate(model)
    print("epoch", epoch, "loss", loss.item(), "val", val_loss)
    if best is None or val_loss < best:
        with open(save, "wb") as f:
            torch.save(model, f)
        best = val_loss

with open(save, "rb") as f:
    model = torch.load(f, weights_only=False)
print("best val", best, "reloaded val", evaluate(model))
