import mindspore
import numpy as np
from mindspore import nn

rng = np.random.default_rng(2)
batches = [
    (
        mindspore.Tensor(rng.standard_normal((4, 3)), dtype=mindspore.float32),
        mindspore.Tensor(rng.standard_normal((4, 1)), dtype=mindspore.float32),
    )
    for _ in range(4)
]
model = nn.Dense(3, 1)
optimizer = nn.SGD(model.trainable_params(), learning_rate=0.1)
criterion = nn.MSELoss(reduction="mean")
accumulation_steps = 2


def forward_fn(inputs, target):
    loss = criterion(model(inputs), target)
    loss = loss / accumulation_steps
    return loss


grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
accumulated = None
for i, (inputs, target) in enumerate(batches):
    loss, grads = grad_fn(inputs, target)
    accumulated = (
        grads
        if accumulated is None
        else tuple(a + g for a, g in zip(accumulated, grads))
    )
    if (i + 1) % accumulation_steps == 0:
        optimizer(accumulated)
        accumulated = None
    print("micro-batch", i, "loss", loss.item())
