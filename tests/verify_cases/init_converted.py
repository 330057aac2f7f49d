import mindspore
import numpy as np
from mindspore import nn, ops


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Dense(3, 4)
        self.norm = nn.BatchNorm1d(4, momentum=0.9)
        self.embed = nn.Embedding(5, 4)
        self.out = nn.Dense(4, 1)

    def construct(self, x, ids):
        return self.out(ops.relu(self.norm(self.hidden(x)) + self.embed(ids)))


rng = np.random.default_rng(0)
x = mindspore.Tensor(rng.standard_normal((6, 3)), dtype=mindspore.float32)
ids = mindspore.Tensor(rng.integers(0, 5, size=6), dtype=mindspore.int32)
y = mindspore.Tensor(rng.standard_normal((6, 1)), dtype=mindspore.float32)
net = Net()
net.set_train()
optimizer = nn.SGD(net.trainable_params(), learning_rate=0.1)


def forward_fn(x, ids, y):
    return ((net(x, ids) - y) ** 2).mean()


grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for step in range(3):
    loss, grads = grad_fn(x, ids, y)
    optimizer(grads)
    print("step", step, "loss", loss.item())
