"""clip_grad_norm_ whose total norm is logged: torch's exact formula on the gradient values."""

import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(28)
model = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 2))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=torch.float32))
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
loader = [
    (torch.tensor(rng.standard_normal((4, 5)), dtype=torch.float32), torch.tensor(rng.standard_normal((4, 2)), dtype=torch.float32))
    for _ in range(6)
]

max_norm = 0.3
for step, (data, target) in enumerate(loader):
    optimizer.zero_grad()
    loss = criterion(model(data), target)
    loss.backward()
    total_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    optimizer.step()
    print("step", step, "loss", loss.item(), "grad norm", total_norm.item())

print("final", [p.sum().item() for p in model.parameters()])
