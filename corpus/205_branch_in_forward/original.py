"""A branch inside the forward region picks the forward computation (word_language_model style)."""

import argparse

import numpy as np
import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--model", default="deep")
args = parser.parse_args([])

rng = np.random.default_rng(25)
shallow = nn.Linear(5, 2)
deep = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 2))
model = deep if args.model == "deep" else shallow
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=torch.float32))
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
loader = [
    (torch.tensor(rng.standard_normal((4, 5)), dtype=torch.float32), torch.tensor(rng.standard_normal((4, 2)), dtype=torch.float32))
    for _ in range(5)
]

for step, (data, target) in enumerate(loader):
    optimizer.zero_grad()
    if args.model == "deep":
        output = model(data)
        output = output * 2.0
    else:
        output = model(data)
    loss = criterion(output, target)
    loss.backward()
    optimizer.step()
    print("step", step, "loss", loss.item())

print("final", [p.sum().item() for p in model.parameters()])
