"""--style cell on a loop that reads the model's output after the step (accuracy): a training cell
returns only the loss, so the functional form stays, with a note that says why."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim

rng = np.random.default_rng(263)
model = nn.SequentialCell(nn.Dense(5, 8), nn.ReLU(), nn.Dense(8, 3))
for p in model.trainable_params():
    p.copy_(mindspore.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=mindspore.float32))
criterion = lambda input, target: ops.cross_entropy(input, target)
optimizer = optim.SGD(model.trainable_params(), lr=0.2)
batches = [
    (mindspore.tensor(rng.standard_normal((10, 5)), dtype=mindspore.float32), mindspore.tensor(rng.integers(0, 3, 10), dtype=mindspore.int64))
    for _ in range(4)
]
def forward_fn(data, target):
    output = model(data)
    loss = criterion(output, target)
    return loss, output
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)
for epoch in range(2):
    correct = 0
    # torch2ms: TM207 --style cell kept the functional form: the loop reads `output` after the step; a training cell returns only the loss
    for data, target in batches:
        (loss, output), grads = grad_fn(data, target)
        optimizer(grads)
        correct += (output.argmax(1) == target).sum().item()
    print("epoch", epoch, "loss", loss.item(), "correct", correct)
print("final", [p.sum().item() for p in model.trainable_params()])
