"""Learning rate decayed by hand every two epochs, as older training scripts do it."""

import numpy as np
import mindspore
from mindspore import nn
from mindspore.experimental import optim


def adjust_learning_rate(optimizer, epoch, decay=0.5):
    if epoch > 0 and epoch % 2 == 0:
        for param_group in optimizer.param_groups:
            param_group["lr"] = float(param_group["lr"]) * decay


rng = np.random.default_rng(37)
inputs = mindspore.tensor(rng.standard_normal((16, 3)), dtype=mindspore.float32)
targets = mindspore.tensor(rng.standard_normal((16, 1)), dtype=mindspore.float32)

mindspore.set_seed(0)
model = nn.SequentialCell(nn.Dense(3, 6), nn.ReLU(), nn.Dense(6, 1))
optimizer = optim.SGD(model.trainable_params(), lr=0.2, momentum=0.9)
criterion = nn.MSELoss()
def forward_fn():
    loss = criterion(model(inputs), targets)
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for epoch in range(6):
    adjust_learning_rate(optimizer, epoch)
    loss, grads = grad_fn()
    optimizer(grads)
    print("epoch", epoch, "loss", loss.item(), "lr", float(optimizer.param_groups[0]["lr"]))
