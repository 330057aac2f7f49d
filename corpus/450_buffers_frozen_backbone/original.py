"""A fine-tuning script that freezes its backbone and keeps normalisation constants as buffers,
reading them back by name (reported: a converted buffer is a Parameter that does not require a
gradient, so the frozen parameters are counted among the buffers too)."""

import numpy as np
import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Linear(4, 8)
        self.classifier = nn.Linear(8, 3)
        self.register_buffer("mean", torch.tensor([0.5, -0.25, 0.0, 1.0]))
        self.register_buffer("scale", torch.tensor(2.0))

    def forward(self, x):
        h = torch.relu(self.backbone((x - self.mean) * self.scale))
        return self.classifier(h)


torch.manual_seed(0)
model = Head()
for p in model.backbone.parameters():
    p.requires_grad = False
buffers = dict(model.named_buffers())
print("mean", buffers["mean"].tolist())
print("scale", buffers["scale"].item())
x = torch.tensor(np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32))
out = model(x) * buffers["scale"]
print("out", out)
