"""A trainer whose train_step computes the loss and hands it to a helper method that zeroes the
gradients, runs backward, clips and steps: the step lives one call away from the forward."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim


class Classifier(nn.Cell):
    def __init__(self):
        super().__init__()
        self.body = nn.Dense(5, 10)
        self.head = nn.Dense(10, 3)

    def construct(self, x):
        return self.head(ops.relu(self.body(x)))


class Trainer:
    def __init__(self, model, optimizer, max_norm=1.0):
        self.model = model
        self.optimizer = optimizer
        self.max_norm = max_norm
        self.steps = 0

    def _optimizer_step(self, grads):
        grad_norm = ops.norm(ops.stack([ops.norm(g) for g in grads]))
        grads = tuple(g * ops.clamp(self.max_norm / (grad_norm + 1e-6), max=1.0) for g in grads)
        self.optimizer(grads)
        return grads

    def train_step(self, inputs, targets):
        def forward_fn():
            logits = self.model(inputs)
            loss = ops.mse_loss(logits, targets)
            return loss
        grad_fn = mindspore.value_and_grad(forward_fn, None, self.optimizer.parameters)
        loss, grads = grad_fn()
        grads = self._optimizer_step(grads)
        self.steps += 1
        return loss.item()

    def fit(self, batches, epochs):
        for epoch in range(epochs):
            total = 0.0
            for inputs, targets in batches:
                total += self.train_step(inputs, targets)
            print("epoch", epoch, "mean loss", total / len(batches))


rng = np.random.default_rng(8)
batches = [
    (mindspore.tensor(rng.standard_normal((6, 5)), dtype=mindspore.float32), mindspore.tensor(rng.standard_normal((6, 3)), dtype=mindspore.float32))
    for _ in range(4)
]
mindspore.set_seed(0)
model = Classifier()
optimizer = optim.SGD(model.trainable_params(), lr=0.05, momentum=0.9, nesterov=True)
trainer = Trainer(model, optimizer, max_norm=0.3)
trainer.fit(batches, epochs=3)
print("steps", trainer.steps)
