"""Per-sample loss weights computed under no_grad from the logits of a BatchNorm model."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim

mindspore.set_seed(0)
rng = np.random.default_rng(0)
model = nn.SequentialCell(nn.Dense(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dense(8, 3))
model.set_train()
optimizer = optim.SGD(model.trainable_params(), lr=0.1)
def forward_fn(logits, confidence, y):
    weights = ops.stop_gradient((1 - confidence) ** 2)
    loss = (ops.cross_entropy(logits, y, reduction="none") * weights).mean()
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, 0, None)
for i in range(3):
    x = mindspore.tensor(rng.standard_normal((6, 4)), dtype=mindspore.float32)
    y = mindspore.tensor(rng.integers(0, 3, size=6), dtype=mindspore.int64)
    logits, logits_vjp = mindspore.vjp(model, x, weights=optimizer.parameters)
    confidence = ops.stop_gradient((ops.softmax(logits, axis=1) * ops.one_hot(y, 3)).sum(dim=1))
    loss, grads_logits = grad_fn(logits, confidence, y)
    _, grads = logits_vjp(grads_logits)
    optimizer(grads)
    print("step", i, loss.item())
