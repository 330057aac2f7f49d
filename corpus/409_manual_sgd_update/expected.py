"""Plain SGD written by hand through p.grad, as in tutorials: no optimizer object."""

import numpy as np
import mindspore
from mindspore import nn, ops

rng = np.random.default_rng(10)
x = mindspore.tensor(rng.standard_normal((20, 2)), dtype=mindspore.float32)
y = mindspore.tensor(rng.standard_normal((20, 1)), dtype=mindspore.float32)

mindspore.set_seed(0)
model = nn.SequentialCell(nn.Dense(2, 4), nn.Sigmoid(), nn.Dense(4, 1))
learning_rate = 0.2
def forward_fn():
    y_pred = model(x)
    loss = ops.mse_loss(y_pred, y, reduction="sum")
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, model.trainable_params())
for t in range(5):
    loss, grads = grad_fn()
    for param, grad in zip(model.trainable_params(), grads):
        ops.assign(param, param - (learning_rate * grad / 20))
    print("iteration", t, "loss", loss.item())
