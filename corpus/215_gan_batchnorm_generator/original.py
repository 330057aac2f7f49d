"""DCGAN-style steps with a BatchNorm generator: its forward runs once (through mindspore.vjp) and
feeds both the detached discriminator step and the generator's gradient."""

import numpy as np
import torch
import torch.nn as nn

class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(3, 8, bias=False), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2))

    def forward(self, z):
        return self.main(z)

rng = np.random.default_rng(41)
netG = Generator()
netD = nn.Sequential(nn.Linear(2, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1), nn.Sigmoid())
for net in (netG, netD):
    with torch.no_grad():
        for p in net.parameters():
            p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=torch.float32))
criterion = nn.BCELoss()
netG.train()
netD.train()
optimizerD = torch.optim.Adam(netD.parameters(), lr=0.02, betas=(0.5, 0.999))
optimizerG = torch.optim.SGD(netG.parameters(), lr=0.1, momentum=0.5)

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
