"""GAN step where the generator (with BatchNorm) output is reshaped before both players use it."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim
import ms_aux


class Generator(nn.Cell):
    def __init__(self, latent, pixels):
        super().__init__()
        self.main = nn.SequentialCell(
            nn.Dense(latent, 16, has_bias=False),
            nn.BatchNorm1d(16),
            ms_aux.ReLU(True),
            nn.Dense(16, pixels),
            nn.Tanh(),
        )

    def construct(self, z):
        return self.main(z)


rng = np.random.default_rng(34)
mindspore.set_seed(0)
netG = Generator(latent=3, pixels=4)
netG.set_train()
netD = nn.SequentialCell(nn.Flatten(), nn.Dense(4, 8), nn.LeakyReLU(alpha=0.2), nn.Dense(8, 1), nn.Sigmoid())
criterion = nn.BCELoss()
optimizerD = optim.Adam(netD.trainable_params(), lr=2e-3, betas=(0.5, 0.999))
optimizerG = optim.Adam(netG.trainable_params(), lr=2e-3, betas=(0.5, 0.999))

for i in range(3):
    real = mindspore.tensor(rng.standard_normal((6, 1, 2, 2)), dtype=mindspore.float32)
    noise = mindspore.tensor(rng.standard_normal((6, 3)), dtype=mindspore.float32)
    import torch

    # torch2ms: TM900 `.zero_grad()` is not converted: no certain MindSpore mapping; it still runs on torch
    netD.zero_grad()
    errD_real = criterion(netD(real), ops.ones((6, 1)))
    # torch2ms: TM926 left unconverted with the rest of its training step
    errD_real.backward()
    fake = netG(noise).view(-1, 1, 2, 2)
    errD_fake = criterion(netD(ops.stop_gradient(fake)), ops.zeros((6, 1)))
    # torch2ms: TM926 left unconverted with the rest of its training step
    errD_fake.backward()
    optimizerD.step()

    # torch2ms: TM900 `.zero_grad()` is not converted: no certain MindSpore mapping; it still runs on torch
    netG.zero_grad()
    errG = criterion(netD(fake), ops.ones((6, 1)))
    # torch2ms: TM923 this forward computation would have to run twice (its values are used before the step and differentiated after it); a model with state (BatchNorm) or randomness (dropout) would then differ; the training step is left unconverted
    errG.backward()
    optimizerG.step()
    print("step", i, "loss_D", (errD_real + errD_fake).item(), "loss_G", errG.item())
