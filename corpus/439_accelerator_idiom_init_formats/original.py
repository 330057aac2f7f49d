"""Pick an accelerator when one is present, initialise the layers in place, print formatted numbers."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(3, 5)
        self.head = nn.Linear(5, 1)
        with torch.no_grad():
            self.body.weight.normal_(0, 0.02)  # redrawn below: only the call is exercised
            self.body.weight.copy_(torch.linspace(-1.0, 1.0, 15).reshape(5, 3))
            self.body.bias.fill_(0.05)
            self.head.weight.data.copy_(torch.linspace(0.3, -0.3, 5).reshape(1, 5))
            self.head.bias.zero_()

    def forward(self, x):
        with torch.autocast(device_type="cuda", enabled=False):
            return self.head(torch.tanh(self.body(x)))


use_accel = torch.accelerator.is_available()
device = torch.accelerator.current_accelerator() if use_accel else torch.device("cpu")

rng = np.random.default_rng(39)
inputs = torch.tensor(rng.standard_normal((16, 3)), dtype=torch.float32)
targets = torch.tensor(rng.standard_normal((16, 1)), dtype=torch.float32)

model = Regressor().to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(4):
    x, y = inputs.to(device), targets.to(device)
    optimizer.zero_grad()
    loss = F.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    print("step {} loss {:.6f}".format(step, loss))
spread = torch.std(model.body.weight)
print(f"weight spread {spread:.5f}")
