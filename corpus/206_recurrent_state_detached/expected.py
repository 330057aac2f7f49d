"""Truncated backpropagation through time: the hidden state is carried across iterations and
detached at the start of each step."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim


class Cell(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inp = nn.Dense(3, 6)
        self.rec = nn.Dense(6, 6)
        self.out = nn.Dense(6, 1)

    def construct(self, x, hidden):
        hidden = ops.tanh(self.inp(x) + self.rec(hidden))
        return self.out(hidden), hidden


def repackage_hidden(h):
    return ops.stop_gradient(h)


rng = np.random.default_rng(26)
model = Cell()
for p in model.trainable_params():
    p.copy_(mindspore.tensor(rng.standard_normal(tuple(p.shape)) * 0.4, dtype=mindspore.float32))
criterion = nn.MSELoss()
optimizer = optim.SGD(model.trainable_params(), lr=0.1)
sequence = mindspore.tensor(rng.standard_normal((6, 2, 3)), dtype=mindspore.float32)
targets = mindspore.tensor(rng.standard_normal((6, 2, 1)), dtype=mindspore.float32)

hidden = ops.zeros((2, 6))
def forward_fn(hidden, t):
    hidden = repackage_hidden(hidden)
    output, hidden = model(sequence[t], hidden)
    loss = criterion(output, targets[t])
    return loss, hidden
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)
for t in range(6):
    (loss, hidden), grads = grad_fn(hidden, t)
    optimizer(grads)
    print("t", t, "loss", loss.item())

print("final", [p.sum().item() for p in model.trainable_params()])
