"""A scaled activation held as a function, a norm layer re-initialised through `apply`, and a
projection without bias registered as `None`, as timm's model files write them."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class GammaAct(nn.Module):
    def __init__(self, gamma=1.7):
        super().__init__()
        self.act_fn = F.silu
        self.gamma = gamma

    def forward(self, x):
        return self.act_fn(x, inplace=False).mul_(self.gamma)


class Projection(nn.Module):
    def __init__(self, dim, bias=False):
        super().__init__()
        self.weight = nn.Parameter(torch.linspace(-0.5, 0.5, dim * dim).reshape(dim, dim))
        if bias:
            self.bias = nn.Parameter(torch.zeros(dim))
        else:
            self.register_parameter('bias', None)

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)


class Block(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.proj = Projection(dim)
        self.act = GammaAct()
        self.head = nn.Linear(dim, 1)
        with torch.no_grad():
            self.norm.weight.fill_(3.0)
            self.head.weight.copy_(torch.linspace(0.2, -0.2, dim).reshape(1, dim))
            self.head.bias.fill_(0.1)
        self.apply(self._init_weights)

    def _init_weights(self, m):
        if isinstance(m, nn.LayerNorm):
            m.reset_parameters()

    def forward(self, x):
        return self.head(self.act(self.proj(self.norm(x))))


rng = np.random.default_rng(40)
inputs = torch.tensor(rng.standard_normal((8, 4)), dtype=torch.float32)
targets = torch.tensor(rng.standard_normal((8, 1)), dtype=torch.float32)

model = Block()
print("norm scale", model.norm.weight.sum().item(), model.norm.bias.sum().item())
print("no bias", model.proj.bias is None)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(3):
    optimizer.zero_grad()
    loss = F.mse_loss(model(inputs), targets)
    loss.backward()
    optimizer.step()
    print("step", step, "loss", loss.item())
