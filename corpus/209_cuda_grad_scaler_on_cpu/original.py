"""torch.cuda.amp.GradScaler on a machine without CUDA: torch disables it (scale 1, never skips); the converted
loss scaler scales by 2**16 and unscales, which is exact, so the losses and parameters agree."""

import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(29)
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

scaler = torch.cuda.amp.GradScaler()
for step, (data, target) in enumerate(loader):
    optimizer.zero_grad()
    with torch.cuda.amp.autocast():
        output = model(data)
        loss = criterion(output, target)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    print("step", step, "loss", loss.item())

print("final", [p.sum().item() for p in model.parameters()])
