"""An Adam-style update over lists of tensors with torch._foreach ops (as multi-tensor optimizers do),
and a block whose activation class is a parameter default."""

import numpy as np
import torch
import torch.nn as nn
from torch.jit.annotations import List


class Block(nn.Module):
    def __init__(self, dim, act_layer=nn.GELU):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.act = act_layer()

    def forward(self, x):
        return self.act(self.fc(x))


def numel(shape: torch.Size) -> int:
    count = 1
    for size in shape:
        count *= size
    return count


def adam_step(params: List[torch.Tensor], grads: List[torch.Tensor], exp_avgs, exp_avg_sqs, lr, step):
    torch._foreach_mul_(exp_avgs, 0.9)
    torch._foreach_add_(exp_avgs, torch._foreach_mul(grads, 0.1))
    torch._foreach_mul_(exp_avg_sqs, 0.999)
    torch._foreach_addcmul_(exp_avg_sqs, grads, grads, value=0.001)
    denom = torch._foreach_sqrt(exp_avg_sqs)
    torch._foreach_div_(denom, (1 - 0.999**step) ** 0.5)
    torch._foreach_add_(denom, 1e-8)
    torch._foreach_addcdiv_(params, exp_avgs, denom, value=-lr / (1 - 0.9**step))


rng = np.random.default_rng(600)
shapes = [(3, 4), (4,)]
params = [torch.tensor(rng.standard_normal(s), dtype=torch.float32) for s in shapes]
exp_avgs = [torch.zeros(s) for s in shapes]
exp_avg_sqs = [torch.zeros(s) for s in shapes]
for step in range(1, 4):
    grads = [torch.tensor(rng.standard_normal(s), dtype=torch.float32) for s in shapes]
    adam_step(params, grads, exp_avgs, exp_avg_sqs, 0.1, step)
    print("step", step, "w", params[0].sum().item(), "b", params[1].sum().item())
print("numel", numel(params[0].shape))

x = torch.tensor(rng.standard_normal((2, 4)), dtype=torch.float32)
block = Block(4)
with torch.no_grad():
    block.fc.weight.copy_(torch.tensor(rng.standard_normal((4, 4)), dtype=torch.float32))
    block.fc.bias.fill_(0.5)
print("block", block(x).sum().item())
