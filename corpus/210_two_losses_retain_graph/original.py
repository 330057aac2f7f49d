"""Two losses on one forward pass, backward(retain_graph=True) then backward(): the gradients add up."""

import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(30)
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

l1 = nn.L1Loss()
for step, (data, target) in enumerate(loader):
    optimizer.zero_grad()
    output = model(data)
    loss_a = criterion(output, target)
    loss_b = 0.5 * l1(output, target)
    loss_a.backward(retain_graph=True)
    loss_b.backward()
    optimizer.step()
    print("step", step, "loss_a", loss_a.item(), "loss_b", loss_b.item())

print("final", [p.sum().item() for p in model.parameters()])
