"""A custom autograd.Function (ctx, save_for_backward, apply) inside a model that is trained."""

import numpy as np
import torch
from torch import nn


class ScaledTanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.tanh(x)
        ctx.save_for_backward(y)
        return 2 * y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * 2 * (1 - y * y)


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(3, 8)
        self.out = nn.Linear(8, 1)

    def forward(self, x):
        return self.out(ScaledTanh.apply(self.hidden(x)))


rng = np.random.default_rng(3)
x = torch.tensor(rng.standard_normal((16, 3)), dtype=torch.float32)
y = torch.tensor(rng.standard_normal((16, 1)), dtype=torch.float32)

torch.manual_seed(0)
model = Regressor()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for step in range(4):
    optimizer.zero_grad()
    loss = torch.mean((model(x) - y) ** 2)
    loss.backward()
    optimizer.step()
    print("step", step, "loss", loss.item())
