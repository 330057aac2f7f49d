# ruff: noqa  (written in the style of the scripts it stands for)
"""Stands in for an example whose conversion cannot run: it prints a loss, then uses an API the
converter leaves on torch."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.randn(16, 3)
y = x @ torch.randn(3, 1)
fc = torch.nn.Linear(3, 1)
loss = F.smooth_l1_loss(fc(x), y)
print("Loss: {:.6f} after {} batches".format(loss.item(), 1))
print(torch.are_deterministic_algorithms_enabled())
