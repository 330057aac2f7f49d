"""Seeds 001/003: loss scaling. torch's GradScaler on the CPU scales the loss, unscales the gradients,
skips the update when they are not finite and adjusts the scale; MindSpore's DynamicLossScaler does the
same on values."""

import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(4)
net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=torch.float32))
loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=2)
batches = [
    (torch.tensor(rng.standard_normal((6, 4)), dtype=torch.float32), torch.tensor(rng.standard_normal((6, 1)), dtype=torch.float32))
    for _ in range(5)
]

for step, (x, y) in enumerate(batches):
    optimizer.zero_grad()
    loss = loss_fn(net(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    print("step", step, "loss", loss.item(), "scale", scaler.get_scale())

print("final", [p.sum().item() for p in net.parameters()])
