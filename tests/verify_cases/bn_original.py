import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(4)
batches = [
    torch.tensor(rng.standard_normal((8, 3)) * 2 + 1, dtype=torch.float32)
    for _ in range(3)
]
norm = nn.BatchNorm1d(3, momentum=0.1)
norm.train()
for step, batch in enumerate(batches):
    out = norm(batch)
    print("step", step, "out", out.sum().item())
norm.eval()
print("eval", norm(batches[0])[:2])
