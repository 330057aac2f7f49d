"""GAN step where the generator (with BatchNorm) output is reshaped before both players use it."""

import numpy as np
import torch
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self, latent, pixels):
        super().__init__()
        self.main = nn.Sequential(
            nn.Linear(latent, 16, bias=False),
            nn.BatchNorm1d(16),
            nn.ReLU(True),
            nn.Linear(16, pixels),
            nn.Tanh(),
        )

    def forward(self, z):
        return self.main(z)


rng = np.random.default_rng(34)
torch.manual_seed(0)
netG = Generator(latent=3, pixels=4)
netD = nn.Sequential(nn.Flatten(), nn.Linear(4, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1), nn.Sigmoid())
criterion = nn.BCELoss()
optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-3, betas=(0.5, 0.999))
optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-3, betas=(0.5, 0.999))

for i in range(3):
    real = torch.tensor(rng.standard_normal((6, 1, 2, 2)), dtype=torch.float32)
    noise = torch.tensor(rng.standard_normal((6, 3)), dtype=torch.float32)

    netD.zero_grad()
    errD_real = criterion(netD(real), torch.ones(6, 1))
    errD_real.backward()
    fake = netG(noise).view(-1, 1, 2, 2)
    errD_fake = criterion(netD(fake.detach()), torch.zeros(6, 1))
    errD_fake.backward()
    optimizerD.step()

    netG.zero_grad()
    errG = criterion(netD(fake), torch.ones(6, 1))
    errG.backward()
    optimizerG.step()
    print("step", i, "loss_D", (errD_real + errD_fake).item(), "loss_G", errG.item())
