"""WGAN-GP style gradient penalty: torch.autograd.grad with create_graph=True inside the critic loss."""

import numpy as np
import mindspore
from mindspore import nn
from mindspore.experimental import optim

rng = np.random.default_rng(13)
mindspore.set_seed(0)
critic = nn.SequentialCell(nn.Dense(2, 8), nn.Tanh(), nn.Dense(8, 1))
optimizer = optim.Adam(critic.trainable_params(), lr=0.01, betas=(0.0, 0.9))
LAMBDA = 10.0


def gradient_penalty(critic, real, fake, alpha):
    interpolates = alpha * real + (1 - alpha) * fake
    # torch2ms: TM917 the gradient may be differentiated again with respect to `critic`, which its function reads as a closure: check that mixed derivative on MindSpore
    def scores_fn(interpolates):
        scores = critic(interpolates)
        return scores
    gradients = (mindspore.grad(scores_fn, grad_position=0)(interpolates),)[0]
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean()


def forward_fn(real, fake, alpha):
    penalty = gradient_penalty(critic, real, fake, alpha)
    loss = critic(fake).mean() - critic(real).mean() + LAMBDA * penalty
    return loss, penalty
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)
for step in range(3):
    real = mindspore.tensor(rng.standard_normal((6, 2)) + 1.0, dtype=mindspore.float32)
    fake = mindspore.tensor(rng.standard_normal((6, 2)), dtype=mindspore.float32)
    alpha = mindspore.tensor(rng.uniform(size=(6, 1)), dtype=mindspore.float32)
    (loss, penalty), grads = grad_fn(real, fake, alpha)
    optimizer(grads)
    print("step", step, "critic loss", loss.item(), "penalty", penalty.item())
