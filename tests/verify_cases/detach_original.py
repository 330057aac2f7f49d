import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(3)
states = torch.tensor(rng.standard_normal((6, 4)), dtype=torch.float32)
next_states = torch.tensor(rng.standard_normal((6, 4)), dtype=torch.float32)
rewards = torch.tensor(rng.standard_normal((6, 1)), dtype=torch.float32)
value_net = nn.Linear(4, 1)
optimizer = torch.optim.SGD(value_net.parameters(), lr=0.05)
gamma = 0.9
for step in range(3):
    target = rewards + gamma * value_net(next_states).detach()
    loss = ((value_net(states) - target) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print("step", step, "td loss", loss.item())
