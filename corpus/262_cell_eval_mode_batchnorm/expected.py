"""--style cell on a model trained in eval mode (frozen BatchNorm statistics, as in fine-tuning):
the training cell must leave the model's mode as the program set it."""

import numpy as np
import mindspore
from mindspore import nn
from mindspore.experimental import optim

rng = np.random.default_rng(262)
model = nn.SequentialCell(nn.Dense(4, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Dense(6, 1))
model.set_train()
for p in model.trainable_params():
    p.copy_(mindspore.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=mindspore.float32))
model.set_train(False)
criterion = nn.MSELoss()
optimizer = optim.SGD(model.trainable_params(), lr=0.1)
batches = [
    (mindspore.tensor(rng.standard_normal((8, 4)), dtype=mindspore.float32), mindspore.tensor(rng.standard_normal((8, 1)), dtype=mindspore.float32))
    for _ in range(4)
]
train_net = nn.TrainOneStepCell(nn.WithLossCell(model, criterion), optimizer)
for inputs, targets in batches:
    loss = train_net(inputs, targets)
    print("loss", loss.item())
print("final", [p.sum().item() for p in model.trainable_params()])
