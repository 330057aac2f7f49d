"""Evaluates a small classifier; the metrics come from a module that only receives tensors."""

import numpy as np
import torch
from torch import nn

from evallib.metrics import accuracy, shape_of

rng = np.random.default_rng(3)
x = torch.tensor(rng.standard_normal((8, 5)), dtype=torch.float32)
y = torch.tensor(rng.integers(0, 3, 8), dtype=torch.int64)
torch.manual_seed(0)
model = nn.Linear(5, 3)
with torch.no_grad():
    logits = model(x)
top1, classes = accuracy(logits, y)
print("top1", top1)
print("classes", classes)
print("rows", shape_of(x)[0], "cols", shape_of(x)[1])
print("logits", logits)
