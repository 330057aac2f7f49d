"""WGAN-GP style gradient penalty: torch.autograd.grad with create_graph=True inside the critic loss."""

import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(13)
torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
optimizer = torch.optim.Adam(critic.parameters(), lr=0.01, betas=(0.0, 0.9))
LAMBDA = 10.0


def gradient_penalty(critic, real, fake, alpha):
    interpolates = alpha * real + (1 - alpha) * fake
    interpolates.requires_grad_(True)
    scores = critic(interpolates)
    gradients = torch.autograd.grad(outputs=scores, inputs=interpolates, grad_outputs=torch.ones_like(scores), create_graph=True)[0]
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean()


for step in range(3):
    real = torch.tensor(rng.standard_normal((6, 2)) + 1.0, dtype=torch.float32)
    fake = torch.tensor(rng.standard_normal((6, 2)), dtype=torch.float32)
    alpha = torch.tensor(rng.uniform(size=(6, 1)), dtype=torch.float32)
    optimizer.zero_grad()
    penalty = gradient_penalty(critic, real, fake, alpha)
    loss = critic(fake).mean() - critic(real).mean() + LAMBDA * penalty
    loss.backward()
    optimizer.step()
    print("step", step, "critic loss", loss.item(), "penalty", penalty.item())
