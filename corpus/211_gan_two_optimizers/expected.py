"""GAN-style alternating steps: the discriminator on real and detached fake data, then the generator;
two optimizers, one gradient value each. The generator has no state, so its forward may run twice."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim

rng = np.random.default_rng(31)
netG = nn.SequentialCell(nn.Dense(3, 8), nn.Tanh(), nn.Dense(8, 2))
netD = nn.SequentialCell(nn.Dense(2, 8), nn.LeakyReLU(alpha=0.2), nn.Dense(8, 1), nn.Sigmoid())
for net in (netG, netD):
    # torch2ms: TM932 `.parameters()` converted on a receiver taken to be a Module from its name
    for p in net.trainable_params():
        p.copy_(mindspore.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=mindspore.float32))
criterion = nn.BCELoss()
optimizerD = optim.Adam(netD.trainable_params(), lr=0.02, betas=(0.5, 0.999))
optimizerG = optim.Adam(netG.trainable_params(), lr=0.02, betas=(0.5, 0.999))


def forward_fn_D1(real, label):
    output = netD(real)
    errD_real = criterion(output, label)
    return errD_real, output
grad_fn_D1 = mindspore.value_and_grad(forward_fn_D1, None, optimizerD.parameters, has_aux=True)
def forward_fn_D2(fake, label):
    output = netD(ops.stop_gradient(fake))
    errD_fake = criterion(output, label)
    return errD_fake, output
grad_fn_D2 = mindspore.value_and_grad(forward_fn_D2, None, optimizerD.parameters, has_aux=True)
def forward_fn_G(fake, label):
    output = netD(fake)
    errG = criterion(output, label)
    return errG, output
grad_fn_G = mindspore.value_and_grad(forward_fn_G, 0, None, has_aux=True)
for i in range(4):
    real = mindspore.tensor(rng.standard_normal((6, 2)) + 1.5, dtype=mindspore.float32)
    noise = mindspore.tensor(rng.standard_normal((6, 3)), dtype=mindspore.float32)
    label = ops.ones((6, 1))

    (errD_real, output), accum_grads_D = grad_fn_D1(real, label)
    fake, fake_vjp = mindspore.vjp(netG, noise, weights=optimizerG.parameters)
    label = ops.zeros((6, 1))
    (errD_fake, output), grads_D = grad_fn_D2(fake, label)
    accum_grads_D = tuple(map(ops.add, accum_grads_D, grads_D))
    errD = errD_real + errD_fake
    optimizerD(accum_grads_D)

    label = ops.ones((6, 1))
    (errG, output), grads_fake = grad_fn_G(fake, label)
    _, grads_G = fake_vjp(grads_fake)
    optimizerG(grads_G)
    print("step", i, "loss_D", errD.item(), "loss_G", errG.item())

print("final D", [p.sum().item() for p in netD.trainable_params()])
print("final G", [p.sum().item() for p in netG.trainable_params()])
