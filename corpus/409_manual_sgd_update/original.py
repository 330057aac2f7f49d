"""Plain SGD written by hand through p.grad, as in tutorials: no optimizer object."""

import numpy as np
import torch

rng = np.random.default_rng(10)
x = torch.tensor(rng.standard_normal((20, 2)), dtype=torch.float32)
y = torch.tensor(rng.standard_normal((20, 1)), dtype=torch.float32)

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(2, 4), torch.nn.Sigmoid(), torch.nn.Linear(4, 1))
learning_rate = 0.2
for t in range(5):
    y_pred = model(x)
    loss = torch.nn.functional.mse_loss(y_pred, y, reduction="sum")
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for param in model.parameters():
            param -= learning_rate * param.grad / 20
    print("iteration", t, "loss", loss.item())
