"""GAN-style alternating steps: the discriminator on real and detached fake data, then the generator;
two optimizers, one gradient value each. The generator has no state, so its forward may run twice."""

import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(31)
netG = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 2))
netD = nn.Sequential(nn.Linear(2, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1), nn.Sigmoid())
for net in (netG, netD):
    with torch.no_grad():
        for p in net.parameters():
            p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=torch.float32))
criterion = nn.BCELoss()
optimizerD = torch.optim.Adam(netD.parameters(), lr=0.02, betas=(0.5, 0.999))
optimizerG = torch.optim.Adam(netG.parameters(), lr=0.02, betas=(0.5, 0.999))


for i in range(4):
    real = torch.tensor(rng.standard_normal((6, 2)) + 1.5, dtype=torch.float32)
    noise = torch.tensor(rng.standard_normal((6, 3)), dtype=torch.float32)
    label = torch.ones(6, 1)

    netD.zero_grad()
    output = netD(real)
    errD_real = criterion(output, label)
    errD_real.backward()
    fake = netG(noise)
    label = torch.zeros(6, 1)
    output = netD(fake.detach())
    errD_fake = criterion(output, label)
    errD_fake.backward()
    errD = errD_real + errD_fake
    optimizerD.step()

    netG.zero_grad()
    label = torch.ones(6, 1)
    output = netD(fake)
    errG = criterion(output, label)
    errG.backward()
    optimizerG.step()
    print("step", i, "loss_D", errD.item(), "loss_G", errG.item())

print("final D", [p.sum().item() for p in netD.parameters()])
print("final G", [p.sum().item() for p in netG.parameters()])
