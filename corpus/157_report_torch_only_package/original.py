"""A script that trains with a Lightning-style trainer: a package built on torch, with no MindSpore form."""

import torch
import torch.nn as nn
from pytorch_lightning import seed_everything

seed_everything(0)
model = nn.Linear(4, 2)
x = torch.randn(3, 4)
print("out", model(x).sum().item())
