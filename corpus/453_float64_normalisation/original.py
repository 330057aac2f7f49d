"""A small normalising head checked in double precision, as gradient checks are."""

import torch
import torch.nn as nn

torch.manual_seed(0)
head = nn.Sequential(
    nn.Linear(6, 4, dtype=torch.float64),
    nn.BatchNorm1d(4, dtype=torch.float64),
)
norm = nn.BatchNorm1d(4, momentum=0.2).double()
head.train()
norm.train()
x = torch.arange(30, dtype=torch.float64).reshape(5, 6) ** 2 / 7.0 - 2.0
for _ in range(3):
    y = norm(head(x))
print("y", y)
print("running_var", norm.running_var.tolist())
