"""A scaled activation held as a function, a norm layer re-initialised through `apply`, and a
projection without bias registered as `None`, as timm's model files write them."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim
import ms_aux


class GammaAct(nn.Cell):
    def __init__(self, gamma=1.7):
        super().__init__()
        self.act_fn = ms_aux.silu
        self.gamma = gamma

    def construct(self, x):
        # torch2ms: TM943 `.mul_()` on the result of a call becomes `.mul()`: the result is taken to be a value the call has just computed
        return self.act_fn(x, inplace=False).mul(self.gamma)


class Projection(nn.Cell):
    def __init__(self, dim, bias=False):
        super().__init__()
        self.weight = mindspore.Parameter(ops.linspace(-0.5, 0.5, dim * dim).reshape(dim, dim))
        if bias:
            self.bias = mindspore.Parameter(ops.zeros(dim))
        else:
            self.bias = None

    def construct(self, x):
        return ops.dense(x, self.weight, self.bias)


class Block(nn.Cell):
    def __init__(self, dim=4):
        super().__init__()
        self.norm = nn.LayerNorm((dim,), epsilon=1e-05)
        self.proj = Projection(dim)
        self.act = GammaAct()
        self.head = nn.Dense(dim, 1)
        ops.assign(self.norm.gamma, ops.full_like(self.norm.gamma, fill_value=3.0))
        self.head.weight.copy_(ops.linspace(0.2, -0.2, dim).reshape(1, dim))
        ops.assign(self.head.bias, ops.full_like(self.head.bias, fill_value=0.1))
        self.apply(self._init_weights)

    def _init_weights(self, m):
        if isinstance(m, nn.LayerNorm):
            ms_aux.reset_parameters(m)

    def construct(self, x):
        return self.head(self.act(self.proj(self.norm(x))))


rng = np.random.default_rng(40)
inputs = mindspore.tensor(rng.standard_normal((8, 4)), dtype=mindspore.float32)
targets = mindspore.tensor(rng.standard_normal((8, 1)), dtype=mindspore.float32)

model = Block()
print("norm scale", model.norm.gamma.sum().item(), model.norm.beta.sum().item())
print("no bias", model.proj.bias is None)
optimizer = optim.SGD(model.trainable_params(), lr=0.05)
def forward_fn():
    loss = ops.mse_loss(model(inputs), targets)
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for step in range(3):
    loss, grads = grad_fn()
    optimizer(grads)
    print("step", step, "loss", loss.item())
