"""GAN training step: a discriminator step on real and detached fake data, then a generator step."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim

LATENT = 4
rng = np.random.default_rng(11)


class Generator(nn.Cell):
    def __init__(self):
        super().__init__()
        self.net = nn.SequentialCell(nn.Dense(LATENT, 8), nn.ReLU(), nn.Dense(8, 2))

    def construct(self, z):
        return self.net(z)


class Discriminator(nn.Cell):
    def __init__(self):
        super().__init__()
        self.net = nn.SequentialCell(nn.Dense(2, 8), nn.LeakyReLU(alpha=0.2), nn.Dense(8, 1))

    def construct(self, x):
        return self.net(x)


mindspore.set_seed(0)
netG = Generator()
netD = Discriminator()
criterion = nn.BCEWithLogitsLoss()
optimizerD = optim.Adam(netD.trainable_params(), lr=0.01, betas=(0.5, 0.999))
optimizerG = optim.Adam(netG.trainable_params(), lr=0.01, betas=(0.5, 0.999))

def forward_fn_D(real, real_label, fake, fake_label):
    errD_real = criterion(netD(real), real_label)
    errD_fake = criterion(netD(ops.stop_gradient(fake)), fake_label)
    return errD_real + errD_fake, errD_real, errD_fake
grad_fn_D = mindspore.value_and_grad(forward_fn_D, None, optimizerD.parameters, has_aux=True)
def forward_fn_G(fake, real_label):
    errG = criterion(netD(fake), real_label)
    return errG
grad_fn_G = mindspore.value_and_grad(forward_fn_G, 0, None)
for step in range(3):
    real = mindspore.tensor(rng.standard_normal((8, 2)) + 2.0, dtype=mindspore.float32)
    noise = mindspore.tensor(rng.standard_normal((8, LATENT)), dtype=mindspore.float32)
    real_label = ops.ones((8, 1))
    fake_label = ops.zeros((8, 1))

    # (1) update D: maximize log(D(x)) + log(1 - D(G(z)))
    fake, fake_vjp = mindspore.vjp(netG, noise, weights=optimizerG.parameters)
    (_, errD_real, errD_fake), grads_D = grad_fn_D(real, real_label, fake, fake_label)
    errD = errD_real + errD_fake
    optimizerD(grads_D)

    # (2) update G: maximize log(D(G(z)))
    errG, grads_fake = grad_fn_G(fake, real_label)
    _, grads_G = fake_vjp(grads_fake)
    optimizerG(grads_G)
    print("step", step, "loss_D", errD.item(), "loss_G", errG.item())
