"""GAN training step: a discriminator step on real and detached fake data, then a generator step."""

import numpy as np
import torch
import torch.nn as nn

LATENT = 4
rng = np.random.default_rng(11)


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(LATENT, 8), nn.ReLU(), nn.Linear(8, 2))

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))

    def forward(self, x):
        return self.net(x)


torch.manual_seed(0)
netG = Generator()
netD = Discriminator()
criterion = nn.BCEWithLogitsLoss()
optimizerD = torch.optim.Adam(netD.parameters(), lr=0.01, betas=(0.5, 0.999))
optimizerG = torch.optim.Adam(netG.parameters(), lr=0.01, betas=(0.5, 0.999))

for step in range(3):
    real = torch.tensor(rng.standard_normal((8, 2)) + 2.0, dtype=torch.float32)
    noise = torch.tensor(rng.standard_normal((8, LATENT)), dtype=torch.float32)
    real_label = torch.ones(8, 1)
    fake_label = torch.zeros(8, 1)

    # (1) update D: maximize log(D(x)) + log(1 - D(G(z)))
    netD.zero_grad()
    errD_real = criterion(netD(real), real_label)
    errD_real.backward()
    fake = netG(noise)
    errD_fake = criterion(netD(fake.detach()), fake_label)
    errD_fake.backward()
    errD = errD_real + errD_fake
    optimizerD.step()

    # (2) update G: maximize log(D(G(z)))
    netG.zero_grad()
    errG = criterion(netD(fake), real_label)
    errG.backward()
    optimizerG.step()
    print("step", step, "loss_D", errD.item(), "loss_G", errG.item())
