# A WGAN-GP style gradient penalty: autograd.grad with grad_outputs=ones_like and
# create_graph=True, differentiated again with respect to the critic's weights.
import numpy as np
import mindspore
from mindspore import ops


def gradient_penalty(critic_w, real, fake, alpha):
    interp = (alpha * real + (1 - alpha) * fake)
    # torch2ms: TM917 the gradient may be differentiated again with respect to `critic_w`, which its function reads as a closure: check that mixed derivative on MindSpore
    def score_fn(interp):
        score = ops.tanh((interp * critic_w).sum(1))
        return score
    grads = (mindspore.grad(score_fn, grad_position=0)(interp),)[0]
    return ((grads ** 2).sum(1).sqrt() - 1).pow(2).mean()


rng = np.random.default_rng(0)
real = mindspore.tensor(rng.standard_normal((4, 3)).astype(np.float32))
fake = mindspore.tensor(rng.standard_normal((4, 3)).astype(np.float32))
alpha = mindspore.tensor(rng.uniform(size=(4, 1)).astype(np.float32))
critic_w = mindspore.tensor(rng.standard_normal(3).astype(np.float32))
def gp_fn(critic_w):
    gp = gradient_penalty(critic_w, real, fake, alpha)
    return gp
gp, critic_w_grad = mindspore.value_and_grad(gp_fn, grad_position=0)(critic_w)
print("gp", gp)
print("critic_w.grad", critic_w_grad)
