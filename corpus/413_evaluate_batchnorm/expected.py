"""Training with BatchNorm (momentum 0.2) then evaluation under no_grad: running statistics matter."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim


def evaluate(model, batches):
    model.set_train(False)
    correct = 0
    total_loss = 0.0
    for inputs, labels in batches:
        logits = model(inputs)
        total_loss += ops.cross_entropy(logits, labels).item()
        correct += (logits.argmax(1) == labels).sum().item()
    return total_loss / len(batches), correct


rng = np.random.default_rng(15)
train_batches = [
    (mindspore.tensor(rng.standard_normal((8, 4)) * 3 + 2, dtype=mindspore.float32), mindspore.tensor(rng.integers(0, 2, size=8)))
    for _ in range(4)
]
val_batches = train_batches[:2]

mindspore.set_seed(0)
model = nn.SequentialCell(nn.Dense(4, 6), nn.BatchNorm1d(6, momentum=0.8), nn.ReLU(), nn.Dense(6, 2))
model.set_train()
optimizer = optim.SGD(model.trainable_params(), lr=0.1, momentum=0.5, weight_decay=1e-4)
def forward_fn(inputs, labels):
    loss = ops.cross_entropy(model(inputs), labels)
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for epoch in range(2):
    model.set_train()
    for inputs, labels in train_batches:
        loss, grads = grad_fn(inputs, labels)
        optimizer(grads)
    val_loss, correct = evaluate(model, val_batches)
    print("epoch", epoch, "val loss", val_loss, "correct", correct)
print("running mean", model[1].moving_mean.asnumpy())
