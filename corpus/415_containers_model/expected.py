"""A model built from ModuleList and ModuleDict, with a residual loop and a named output head."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim


class ResidualMLP(nn.Cell):
    def __init__(self, width, depth, heads):
        super().__init__()
        self.blocks = nn.CellList([nn.SequentialCell(nn.Dense(width, width), nn.ReLU()) for _ in range(depth)])
        self.heads = nn.CellDict({name: nn.Dense(width, size) for name, size in heads.items()})

    def construct(self, x, head):
        for block in self.blocks:
            x = x + block(x)
        return self.heads[head](x)


rng = np.random.default_rng(17)
x = mindspore.tensor(rng.standard_normal((6, 4)), dtype=mindspore.float32)
target = mindspore.tensor(rng.standard_normal((6, 2)), dtype=mindspore.float32)

mindspore.set_seed(0)
model = ResidualMLP(4, depth=3, heads={"score": 2, "aux": 1})
optimizer = optim.Adam(model.trainable_params(), lr=0.01)
def forward_fn():
    loss = ((model(x, "score") - target) ** 2).mean()
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for step in range(3):
    loss, grads = grad_fn()
    optimizer(grads)
    print("step", step, "loss", loss.item())
print("aux head", ops.stop_gradient(model(x, "aux")).asnumpy().ravel())
