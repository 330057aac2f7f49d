"""Two task losses on a shared trunk, each with its own backward; the first keeps the graph."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim


class MultiTaskNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Dense(4, 8)
        self.regression_head = nn.Dense(8, 1)
        self.classification_head = nn.Dense(8, 3)

    def construct(self, x):
        shared = ops.relu(self.trunk(x))
        return self.regression_head(shared), self.classification_head(shared)


rng = np.random.default_rng(14)
x = mindspore.tensor(rng.standard_normal((10, 4)), dtype=mindspore.float32)
y_reg = mindspore.tensor(rng.standard_normal((10, 1)), dtype=mindspore.float32)
y_cls = mindspore.tensor(rng.integers(0, 3, size=10), dtype=mindspore.int64)

mindspore.set_seed(0)
net = MultiTaskNet()
optimizer = optim.SGD(net.trainable_params(), lr=0.1)
def forward_fn():
    pred_reg, pred_cls = net(x)
    loss_reg = ops.mse_loss(pred_reg, y_reg)
    loss_cls = ops.cross_entropy(pred_cls, y_cls)
    return loss_reg + loss_cls, loss_reg, loss_cls
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)
for step in range(3):
    (_, loss_reg, loss_cls), grads = grad_fn()
    optimizer(grads)
    print("step", step, "regression", loss_reg.item(), "classification", loss_cls.item())
