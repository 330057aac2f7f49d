"""A convolution checked in double precision, and weights stored in float8."""

import torch
import torch.nn as nn

conv = nn.Conv1d(3, 4, 3, padding=1, dtype=torch.float64)
x = torch.randn(2, 3, 8, dtype=torch.float64)
y = conv(x)
packed = conv.weight.detach().to(torch.float8_e4m3fn)
print("y", y.sum().item(), packed.float().sum().item())
