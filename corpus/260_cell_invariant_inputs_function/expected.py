"""--style cell on a train() function: the inputs are its parameters, the same tensors at every
epoch (full-batch training), and the forward is written in two statements."""

import numpy as np
import mindspore
from mindspore import nn
from mindspore.experimental import optim


def train(model, criterion, optimizer, features, labels, epochs):
    train_net = nn.TrainOneStepCell(nn.WithLossCell(model, criterion), optimizer)
    for epoch in range(epochs):
        loss = train_net(features, labels)
        print("epoch", epoch, "loss", loss.item())
    return loss.item()


rng = np.random.default_rng(260)
features = mindspore.tensor(rng.standard_normal((12, 3)), dtype=mindspore.float32)
labels = mindspore.tensor(rng.standard_normal((12, 2)), dtype=mindspore.float32)
model = nn.SequentialCell(nn.Dense(3, 5), nn.Tanh(), nn.Dense(5, 2))
for p in model.trainable_params():
    p.copy_(mindspore.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=mindspore.float32))
criterion = nn.SmoothL1Loss(reduction='mean')
optimizer = optim.SGD(model.trainable_params(), lr=0.1, momentum=0.5)
final = train(model, criterion, optimizer, features, labels, 5)
print("final loss", final)
print("final", [p.sum().item() for p in model.trainable_params()])
