import mindspore
import numpy as np
from mindspore import nn

rng = np.random.default_rng(0)
x = mindspore.Tensor(rng.standard_normal((8, 3)), dtype=mindspore.float32)
y = mindspore.Tensor(rng.standard_normal((8, 1)), dtype=mindspore.float32)
model = nn.Dense(3, 1)
optimizer = nn.SGD(model.trainable_params(), learning_rate=0.1)
loss_fn = nn.MSELoss()


def forward_fn(x, y):
    return loss_fn(model(x), y)


grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for step in range(3):
    loss, grads = grad_fn(x, y)
    optimizer(grads)
    print("step", step, "loss", loss.item())
