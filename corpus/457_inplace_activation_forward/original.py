"""A block with in-place activations and a layer scale updated in place, as vision backbones
write them (`inplace=True`): the forward of an input, evaluated without a gradient."""

import numpy as np
import torch
from torch import nn


def swish(x, inplace: bool = False):
    return x.mul_(x.sigmoid()) if inplace else x.mul(x.sigmoid())


class LayerScale(nn.Module):
    def __init__(self, dim, init_values=1e-5, inplace=False):
        super().__init__()
        self.inplace = inplace
        self.gamma = nn.Parameter(init_values * torch.ones(dim))

    def forward(self, x):
        return x.mul_(self.gamma) if self.inplace else x * self.gamma


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.ls = LayerScale(dim, init_values=0.5, inplace=True)

    def forward(self, x):
        y = self.fc(x)
        y.clamp_(-2.0, 2.0)
        return x + self.ls(swish(y, inplace=True))


torch.manual_seed(0)
model = Block(4)
data = torch.tensor(
    np.random.default_rng(0).standard_normal((2, 4)), dtype=torch.float32
)
print("out", model(data))
