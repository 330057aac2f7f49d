"""An Adam-style update over lists of tensors with torch._foreach ops (as multi-tensor optimizers do),
and a block whose activation class is a parameter default."""

import numpy as np
import functools
import mindspore
from mindspore import nn, ops
from typing import List


class Block(nn.Cell):
    def __init__(self, dim, act_layer=functools.partial(nn.GELU, approximate=False)):
        super().__init__()
        self.fc = nn.Dense(dim, dim)
        self.act = act_layer()

    def construct(self, x):
        return self.act(self.fc(x))


def numel(shape: tuple) -> int:
    count = 1
    for size in shape:
        count *= size
    return count


def adam_step(params: List[mindspore.Tensor], grads: List[mindspore.Tensor], exp_avgs, exp_avg_sqs, lr, step):
    for _t in exp_avgs:
        ops.assign(_t, ops.mul(_t, 0.9))
    for _t1, _t2 in zip(exp_avgs, [ops.mul(_t, 0.1) for _t in grads]):
        ops.assign(_t1, ops.add(_t1, _t2))
    for _t in exp_avg_sqs:
        ops.assign(_t, ops.mul(_t, 0.999))
    for _t, _t1, _t2 in zip(exp_avg_sqs, grads, grads):
        ops.assign(_t, ops.addcmul(_t, _t1, _t2, value=0.001))
    denom = [ops.sqrt(_t) for _t in exp_avg_sqs]
    _s = (1 - 0.999**step) ** 0.5
    for _t in denom:
        ops.assign(_t, ops.div(_t, _s))
    for _t in denom:
        ops.assign(_t, ops.add(_t, 1e-8))
    _s = -lr / (1 - 0.9**step)
    for _t, _t1, _t2 in zip(params, exp_avgs, denom):
        ops.assign(_t, ops.addcdiv(_t, _t1, _t2, value=_s))


rng = np.random.default_rng(600)
shapes = [(3, 4), (4,)]
params = [mindspore.tensor(rng.standard_normal(s), dtype=mindspore.float32) for s in shapes]
exp_avgs = [ops.zeros(s) for s in shapes]
exp_avg_sqs = [ops.zeros(s) for s in shapes]
for step in range(1, 4):
    grads = [mindspore.tensor(rng.standard_normal(s), dtype=mindspore.float32) for s in shapes]
    adam_step(params, grads, exp_avgs, exp_avg_sqs, 0.1, step)
    print("step", step, "w", params[0].sum().item(), "b", params[1].sum().item())
print("numel", numel(params[0].shape))

x = mindspore.tensor(rng.standard_normal((2, 4)), dtype=mindspore.float32)
block = Block(4)
block.fc.weight.copy_(mindspore.tensor(rng.standard_normal((4, 4)), dtype=mindspore.float32))
ops.assign(block.fc.bias, ops.full_like(block.fc.bias, fill_value=0.5))
print("block", block(x).sum().item())
