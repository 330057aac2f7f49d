"""Inference helpers decorated with @torch.no_grad() and @torch.inference_mode(), after training."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim

rng = np.random.default_rng(22)
train_x = mindspore.tensor(rng.standard_normal((10, 2)), dtype=mindspore.float32)
train_y = mindspore.tensor(rng.integers(0, 2, size=(10, 1)), dtype=mindspore.float32)

mindspore.set_seed(0)
model = nn.SequentialCell(nn.Dense(2, 4), nn.ReLU(), nn.Dense(4, 1))
optimizer = optim.Adam(model.trainable_params(), lr=0.05)
criterion = nn.BCEWithLogitsLoss()


def predict_proba(model, x):
    return ops.sigmoid(model(x))


def accuracy(model, x, y):
    predictions = (model(x) > 0).float()
    return (predictions == y).float().mean().item()


def forward_fn():
    loss = criterion(model(train_x), train_y)
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for step in range(5):
    loss, grads = grad_fn()
    optimizer(grads)
print("probabilities", predict_proba(model, train_x[:3]).asnumpy().ravel())
print("accuracy", accuracy(model, train_x, train_y))
