"""Evaluates a small classifier; the metrics come from a module that only receives tensors."""

import numpy as np
import mindspore
from mindspore import nn

from evallib.metrics import accuracy, shape_of

rng = np.random.default_rng(3)
x = mindspore.tensor(rng.standard_normal((8, 5)), dtype=mindspore.float32)
y = mindspore.tensor(rng.integers(0, 3, 8), dtype=mindspore.int64)
mindspore.set_seed(0)
model = nn.Dense(5, 3)
logits = model(x)
top1, classes = accuracy(logits, y)
print("top1", top1)
print("classes", classes)
print("rows", shape_of(x)[0], "cols", shape_of(x)[1])
print("logits", logits)
