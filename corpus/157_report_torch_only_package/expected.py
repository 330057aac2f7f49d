"""A script that trains with a Lightning-style trainer: a package built on torch, with no MindSpore form."""

from mindspore import nn, ops
# torch2ms: TM901 `pytorch_lightning` is built on torch and has no MindSpore form
from pytorch_lightning import seed_everything

seed_everything(0)
model = nn.Dense(4, 2)
x = ops.randn((3, 4))
print("out", model(x).sum().item())
