"""Fine-tuning with frozen BatchNorm statistics: the model overrides train() to keep BN in eval mode."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim


class Finetune(nn.Cell):
    def __init__(self):
        super().__init__()
        self.stem = nn.Dense(5, 6)
        self.bn = nn.BatchNorm1d(6)
        self.head = nn.Dense(6, 2)

    # torch2ms: TM939 `train()` override renamed `set_train()`: MindSpore calls it on this cell only, not from a parent's `set_train()`
    def set_train(self, mode=True):
        super().set_train(mode)
        self.bn.set_train(False)
        return self

    def construct(self, x):
        return self.head(ops.relu(self.bn(self.stem(x))))


mindspore.set_seed(0)
rng = np.random.default_rng(7)
inputs = mindspore.tensor(rng.standard_normal((10, 5)), dtype=mindspore.float32)
targets = mindspore.tensor(rng.standard_normal((10, 2)), dtype=mindspore.float32)

model = Finetune()
model.set_train()
optimizer = optim.SGD(model.trainable_params(), lr=0.1)
def forward_fn():
    loss = ops.mse_loss(model(inputs), targets)
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for step in range(3):
    loss, grads = grad_fn()
    optimizer(grads)
    print("loss", loss.item())

print("statistics untouched", model.bn.moving_mean.tolist(), model.bn.moving_variance.tolist())
print("bn training", float(model.bn.training), "model training", float(model.training))
