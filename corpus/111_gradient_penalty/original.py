# A WGAN-GP style gradient penalty: autograd.grad with grad_outputs=ones_like and
# create_graph=True, differentiated again with respect to the critic's weights.
import numpy as np
import torch


def gradient_penalty(critic_w, real, fake, alpha):
    interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    score = torch.tanh((interp * critic_w).sum(1))
    grads = torch.autograd.grad(
        outputs=score,
        inputs=interp,
        grad_outputs=torch.ones_like(score),
        create_graph=True,
        retain_graph=True,
    )[0]
    return ((grads ** 2).sum(1).sqrt() - 1).pow(2).mean()


rng = np.random.default_rng(0)
real = torch.tensor(rng.standard_normal((4, 3)).astype(np.float32))
fake = torch.tensor(rng.standard_normal((4, 3)).astype(np.float32))
alpha = torch.tensor(rng.uniform(size=(4, 1)).astype(np.float32))
critic_w = torch.tensor(rng.standard_normal(3).astype(np.float32), requires_grad=True)
gp = gradient_penalty(critic_w, real, fake, alpha)
gp.backward()
print("gp", gp)
print("critic_w.grad", critic_w.grad)
